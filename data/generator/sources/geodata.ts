// geodata.gov.gr CKAN `package_search` responses (rows=50, sort=metadata_modified desc):
// {"help":…,"success":true,"result":{"count":N,"facets":{},"results":[package…],"sort":…,"search_facets":{}}}.
import { START, END, DAY } from '../dates.js';
import { PLACES, REGIONS } from '../geo.js';
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import { slugify } from '../text.js';
import type { World } from '../world.js';

const PAGE = 50;

interface Org {
  name: string;
  title: string;
  description: string;
}

const ORGS: Org[] = [
  { name: 'ypen', title: 'Υπουργείο Περιβάλλοντος και Ενέργειας', description: 'Χωρικά δεδομένα για το περιβάλλον, τα ύδατα και την ενέργεια.' },
  { name: 'ktimatologio', title: 'Ελληνικό Κτηματολόγιο', description: 'Δασικοί χάρτες, ορθοφωτοχάρτες και κτηματολογικά δεδομένα.' },
  { name: 'elstat', title: 'Ελληνική Στατιστική Αρχή', description: 'Διοικητικά όρια και στατιστικές γεωγραφικές μονάδες.' },
  { name: 'eagme', title: 'Ελληνική Αρχή Γεωλογικών και Μεταλλευτικών Ερευνών', description: 'Γεωλογικοί και υδρογεωλογικοί χάρτες.' },
  { name: 'gys', title: 'Γεωγραφική Υπηρεσία Στρατού', description: 'Τοπογραφικά υπόβαθρα και γεωδαιτικά σημεία.' },
  { name: 'ypes', title: 'Υπουργείο Εσωτερικών', description: 'Όρια ΟΤΑ και εκλογικών περιφερειών.' },
  { name: 'minedu', title: 'Υπουργείο Παιδείας, Θρησκευμάτων και Αθλητισμού', description: 'Σχολικές μονάδες και εκπαιδευτικές υποδομές.' },
  { name: 'yppo', title: 'Υπουργείο Πολιτισμού', description: 'Αρχαιολογικοί χώροι, μνημεία και κηρυγμένες ζώνες.' },
];

const WATER_DISTRICTS = [
  'Δυτικής Πελοποννήσου',
  'Βόρειας Πελοποννήσου',
  'Ανατολικής Πελοποννήσου',
  'Δυτικής Στερεάς Ελλάδας',
  'Ηπείρου',
  'Αττικής',
  'Ανατολικής Στερεάς Ελλάδας',
  'Θεσσαλίας',
  'Δυτικής Μακεδονίας',
  'Κεντρικής Μακεδονίας',
  'Ανατολικής Μακεδονίας',
  'Θράκης',
  'Κρήτης',
  'Νήσων Αιγαίου',
];

interface Spec {
  title: string;
  notes: string;
  org: string;
  tags: string[];
  formats: string[];
}

function title(s: string): string {
  return s.charAt(0) + s.slice(1).toLowerCase();
}

function specs(): Spec[] {
  const out: Spec[] = [];
  const units = [...new Set(PLACES.map((p) => p.unit))];
  for (const u of units) {
    out.push({
      title: `Δασικός χάρτης Περιφερειακής Ενότητας ${title(u)}`,
      notes: `Κυρωμένος δασικός χάρτης της Περιφερειακής Ενότητας ${title(u)}, με τις δασικές και χορτολιβαδικές εκτάσεις.`,
      org: 'ktimatologio',
      tags: ['δάση', 'δασικοί χάρτες', 'κτηματολόγιο'],
      formats: ['WMS', 'WFS', 'SHP'],
    });
    out.push({
      title: `Αιγιαλός και παραλία - ${title(u)}`,
      notes: `Καθορισμένες γραμμές αιγιαλού και παραλίας στην Περιφερειακή Ενότητα ${title(u)}.`,
      org: 'ypen',
      tags: ['αιγιαλός', 'ακτογραμμή'],
      formats: ['WMS', 'GeoJSON'],
    });
  }
  for (const w of WATER_DISTRICTS) {
    out.push({
      title: `Ζώνες δυνητικά υψηλού κινδύνου πλημμύρας - Υδατικό Διαμέρισμα ${w}`,
      notes: `Χάρτες επικινδυνότητας και κινδύνου πλημμύρας για το Υδατικό Διαμέρισμα ${w} (Οδηγία 2007/60/ΕΚ).`,
      org: 'ypen',
      tags: ['πλημμύρες', 'ύδατα', 'οδηγία 2007/60'],
      formats: ['WMS', 'WFS', 'KML'],
    });
    out.push({
      title: `Υπόγεια υδατικά συστήματα - ${w}`,
      notes: `Όρια και χαρακτηρισμός των υπόγειων υδατικών συστημάτων του Υδατικού Διαμερίσματος ${w}.`,
      org: 'eagme',
      tags: ['υπόγεια ύδατα', 'υδρογεωλογία'],
      formats: ['WMS', 'SHP'],
    });
  }
  for (const p of PLACES.filter((x) => x.body)) {
    out.push({
      title: `Ρυμοτομικό σχέδιο Δήμου ${p.city}`,
      notes: `Εγκεκριμένο ρυμοτομικό σχέδιο και οικοδομικά τετράγωνα του Δήμου ${p.city}.`,
      org: 'ypen',
      tags: ['πολεοδομία', 'ρυμοτομικό'],
      formats: ['WMS', 'GeoJSON', 'CSV'],
    });
  }
  for (const r of REGIONS) {
    out.push({
      title: `Σχολικές μονάδες Περιφέρειας ${r.label}`,
      notes: `Θέσεις και στοιχεία των σχολικών μονάδων πρωτοβάθμιας και δευτεροβάθμιας εκπαίδευσης στην Περιφέρεια ${r.label}.`,
      org: 'minedu',
      tags: ['εκπαίδευση', 'σχολεία'],
      formats: ['GeoJSON', 'CSV', 'WMS'],
    });
    out.push({
      title: `Κηρυγμένοι αρχαιολογικοί χώροι - ${r.label}`,
      notes: `Οριοθετημένοι και κηρυγμένοι αρχαιολογικοί χώροι στην Περιφέρεια ${r.label}.`,
      org: 'yppo',
      tags: ['πολιτισμός', 'αρχαιολογικοί χώροι'],
      formats: ['WMS', 'KML'],
    });
  }
  out.push(
    {
      title: 'Όρια Δήμων (Πρόγραμμα Καλλικράτης)',
      notes: 'Διοικητικά όρια των 332 δήμων σύμφωνα με το Πρόγραμμα Καλλικράτης.',
      org: 'elstat',
      tags: ['διοικητικά όρια', 'δήμοι'],
      formats: ['SHP', 'GeoJSON', 'WMS', 'WFS'],
    },
    {
      title: 'Όρια Περιφερειακών Ενοτήτων',
      notes: 'Διοικητικά όρια των περιφερειακών ενοτήτων.',
      org: 'elstat',
      tags: ['διοικητικά όρια'],
      formats: ['SHP', 'GeoJSON'],
    },
    {
      title: 'Οικισμοί της Ελλάδας (Απογραφή 2021)',
      notes: 'Σημειακή απεικόνιση των οικισμών με τον μόνιμο πληθυσμό της Απογραφής 2021.',
      org: 'elstat',
      tags: ['πληθυσμός', 'οικισμοί', 'απογραφή'],
      formats: ['CSV', 'GeoJSON', 'WMS'],
    },
    {
      title: 'Περιοχές Natura 2000',
      notes: 'Ζώνες Ειδικής Προστασίας (ΖΕΠ) και Ειδικές Ζώνες Διατήρησης (ΕΖΔ) του δικτύου Natura 2000.',
      org: 'ypen',
      tags: ['natura 2000', 'προστατευόμενες περιοχές', 'βιοποικιλότητα'],
      formats: ['SHP', 'WMS', 'WFS'],
    },
    {
      title: 'Σταθμοί μέτρησης ατμοσφαιρικής ρύπανσης',
      notes: 'Θέσεις των σταθμών του Εθνικού Δικτύου Παρακολούθησης Ατμοσφαιρικής Ρύπανσης.',
      org: 'ypen',
      tags: ['ατμόσφαιρα', 'ρύπανση'],
      formats: ['CSV', 'GeoJSON'],
    },
    {
      title: 'Εκλογικές περιφέρειες',
      notes: 'Όρια των εκλογικών περιφερειών της Επικράτειας.',
      org: 'ypes',
      tags: ['εκλογές', 'διοικητικά όρια'],
      formats: ['SHP', 'GeoJSON'],
    },
    { title: 'Τριγωνομετρικά σημεία', notes: 'Γεωδαιτικό δίκτυο τριγωνομετρικών σημείων της ΓΥΣ.', org: 'gys', tags: ['γεωδαισία'], formats: ['CSV', 'WMS'] },
    {
      title: 'Γεωλογικός χάρτης της Ελλάδας 1:50.000',
      notes: 'Ψηφιοποιημένα φύλλα του γεωλογικού χάρτη κλίμακας 1:50.000.',
      org: 'eagme',
      tags: ['γεωλογία'],
      formats: ['WMS'],
    },
    {
      title: 'Σεισμικά ρήγματα',
      notes: 'Ενεργά και πιθανώς ενεργά ρήγματα του ελλαδικού χώρου.',
      org: 'eagme',
      tags: ['σεισμοί', 'γεωλογία'],
      formats: ['WMS', 'KML'],
    },
  );
  return out;
}

function ts(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23) + '123';
}

export function renderGeodata(_world: World, rng: Rng): OutFile[] {
  const orgs = ORGS.map((o) => ({ ...o, id: rng.uuid(), created: ts(START - rng.int(400, 2500) * DAY) }));
  const creator = rng.uuid();
  const packages = specs().map((s) => {
    const org = orgs.find((o) => o.name === s.org) ?? orgs[0];
    const created = START + rng.int(0, Math.floor((END - START) / DAY) - 30) * DAY + rng.int(0, 86_399_999);
    const modified = Math.min(created + rng.int(0, 400) * DAY + rng.int(0, 86_399_999), END + 43_200_000);
    const id = rng.uuid();
    const name = slugify(s.title).slice(0, 90);
    const layer = rng.uuid();
    const resources = s.formats.map((format, position) => {
      const url =
        format === 'WMS'
          ? `https://geodata.gov.gr/geoserver/ows?service=WMS&version=1.3.0&request=GetCapabilities&layers=geodata.gov.gr:${layer}`
          : format === 'WFS' || format === 'GeoJSON'
            ? `https://geodata.gov.gr/geoserver/wfs/?service=WFS&version=1.0.0&request=GetFeature&typeName=geodata.gov.gr:${layer}&outputFormat=application/json&srsName=epsg:4326`
            : `https://geodata.gov.gr/dataset/${id}/resource/${layer}/download/${name}.${format.toLowerCase()}`;
      return {
        cache_last_updated: null,
        cache_url: null,
        created: ts(created),
        description: `${s.title} (${format})`,
        format,
        hash: '',
        id: rng.uuid(),
        last_modified: null,
        metadata_modified: ts(modified),
        mimetype: null,
        mimetype_inner: null,
        name: `${s.title} - ${format}`,
        package_id: id,
        position,
        resource_type: null,
        size: null,
        state: 'active',
        url,
        url_type: null,
      };
    });
    return {
      author: null,
      author_email: null,
      creator_user_id: creator,
      id,
      isopen: true,
      license_id: 'cc-by',
      license_title: 'Creative Commons Attribution',
      license_url: 'http://www.opendefinition.org/licenses/cc-by',
      maintainer: org.title,
      maintainer_email: null,
      metadata_created: ts(created),
      metadata_modified: ts(modified),
      name,
      notes: s.notes,
      num_resources: resources.length,
      num_tags: s.tags.length,
      organization: {
        id: org.id,
        name: org.name,
        title: org.title,
        type: 'organization',
        description: org.description,
        image_url: '',
        created: org.created,
        is_organization: true,
        approval_status: 'approved',
        state: 'active',
      },
      owner_org: org.id,
      private: false,
      state: 'active',
      title: s.title,
      type: 'dataset',
      url: '',
      version: null,
      extras: [{ key: 'spatial', value: '{"type":"Polygon","coordinates":[[[19.37,34.8],[29.65,34.8],[29.65,41.75],[19.37,41.75],[19.37,34.8]]]}' }],
      resources,
      tags: s.tags.map((t) => ({ display_name: t, id: rng.uuid(), name: t, state: 'active', vocabulary_id: null })),
      groups: [],
      relationships_as_subject: [],
      relationships_as_object: [],
      _modified: modified,
    };
  });
  packages.sort((a, b) => b._modified - a._modified);
  const files: OutFile[] = [];
  const pages = Math.ceil(packages.length / PAGE);
  for (let p = 0; p < pages; p++) {
    const slice = packages.slice(p * PAGE, (p + 1) * PAGE).map(({ _modified, ...pkg }) => pkg);
    const body = {
      help: 'https://geodata.gov.gr/api/3/action/help_show?name=package_search',
      success: true,
      result: { count: packages.length, facets: {}, results: slice, sort: 'metadata_modified desc', search_facets: {} },
    };
    files.push({ path: `geodata/${seq(p + 1)}-package_search-start${p * PAGE}.json`, body: json(body), records: slice.length });
  }
  return files;
}
