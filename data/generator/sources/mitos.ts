// ΜΙΤΟΣ `GET /v1/services-extended/{id}` bodies: {"data":{id,title{el,en},last_updated,metadata{process,
// process_conditions,process_evidences,process_evidences_cost,process_steps,process_steps_digital,
// process_rules,process_provision_digital_locations,process_useful_links,glance}},"success":true}.
// Field names follow public clients of the live API; `process_rules[].rule_ada` cites Diavgeia Α.2 acts.
import { DAY, END, START, isoSeconds } from '../dates.js';
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { World } from '../world.js';

const ACTIONS: [string, string][] = [
  ['Έκδοση', 'Issue of'],
  ['Χορήγηση', 'Granting of'],
  ['Ανανέωση', 'Renewal of'],
  ['Τροποποίηση', 'Amendment of'],
  ['Ανάκληση', 'Revocation of'],
  ['Αντικατάσταση', 'Replacement of'],
];

/** [genitive object, English object, owner, life event, allowed actions (indices into ACTIONS)]. */
const OBJECTS: [string, string, string, string, number[]][] = [
  ['άδειας οδήγησης', 'a driving licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Μεταφορές και οχήματα', [0, 2, 5]],
  ['άδειας κυκλοφορίας οχήματος', 'a vehicle registration certificate', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Μεταφορές και οχήματα', [0, 4, 5]],
  ['άδειας οδικού μεταφορέα', 'a road haulier licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4]],
  [
    'δελτίου ταξινόμησης μηχανήματος έργου',
    'a construction machinery registration',
    'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ',
    'Επιχειρηματική δραστηριότητα',
    [0, 5],
  ],
  ['πιστοποιητικού οικογενειακής κατάστασης', 'a family status certificate', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Οικογένεια', [0]],
  ['πιστοποιητικού εγγυτέρων συγγενών', 'a next-of-kin certificate', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Οικογένεια', [0]],
  ['βεβαίωσης μόνιμης κατοικίας', 'a certificate of permanent residence', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Κατοικία', [0]],
  ['πιστοποιητικού δημοτολογίου', 'a municipal register certificate', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Ιθαγένεια και δημοτολόγιο', [0]],
  [
    'άδειας λειτουργίας καταστήματος υγειονομικού ενδιαφέροντος',
    'an operating licence for a food business',
    'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ',
    'Επιχειρηματική δραστηριότητα',
    [1, 2, 3, 4],
  ],
  ['άδειας χρήσης κοινόχρηστου χώρου', 'a permit to use public space', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 4]],
  ['άδειας παραμονής ζώων συντροφιάς', 'a pet registration', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Κατοικία', [0]],
  ['άδειας υπαίθριου εμπορίου', 'a street trading licence', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 4, 5]],
  ['επιδόματος θέρμανσης', 'the heating allowance', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Κοινωνική πρόνοια', [1]],
  ['κάρτας αναπηρίας', 'a disability card', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [0, 2, 5]],
  ['άδειας ίδρυσης ιδιωτικού ιατρείου', 'a licence to open a private medical practice', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [1, 3, 4]],
  ['άδειας λειτουργίας φαρμακείου', 'a pharmacy operating licence', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [1, 3, 4]],
  ['άδειας άσκησης επαγγέλματος νοσηλευτή', 'a nursing practice licence', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Εργασία', [1, 5]],
  ['βεβαίωσης εμβολιασμού', 'a vaccination certificate', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [0]],
  ['αντιγράφου απολυτηρίου', 'a copy of a school leaving certificate', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Εκπαίδευση', [0]],
  ['άδειας ίδρυσης φροντιστηρίου', 'a licence for a private tutoring school', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Εκπαίδευση', [1, 2, 3, 4]],
  ['πιστοποιητικού γλωσσομάθειας', 'a language proficiency certificate', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Εκπαίδευση', [0, 5]],
  ['άδειας λειτουργίας αθλητικού σωματείου', 'a sports club licence', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Ελεύθερος χρόνος', [1, 2, 4]],
  ['ψηφιακής υπογραφής', 'a digital signature certificate', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [0, 2, 4]],
  ['κωδικών πρόσβασης στο gov.gr', 'gov.gr access credentials', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [0, 5]],
  ['ψηφιακού πιστοποιητικού ταυτότητας', 'a digital identity certificate', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [0, 2]],
  ['εξουσιοδότησης μέσω gov.gr', 'an authorisation through gov.gr', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [0, 4]],
  [
    'βεβαίωσης παραγωγού ηλεκτρικής ενέργειας από ΑΠΕ',
    'a renewable energy producer certificate',
    'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ',
    'Ενέργεια και περιβάλλον',
    [1, 3, 4],
  ],
  [
    'άδειας εγκατάστασης σταθμού ΑΠΕ',
    'an installation permit for a renewable power station',
    'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ',
    'Ενέργεια και περιβάλλον',
    [1, 2, 3],
  ],
  [
    'άδειας λειτουργίας σταθμού ΑΠΕ',
    'an operating permit for a renewable power station',
    'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ',
    'Ενέργεια και περιβάλλον',
    [1, 2, 3, 4],
  ],
  ['έγκρισης περιβαλλοντικών όρων', 'an environmental terms approval', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Ενέργεια και περιβάλλον', [1, 2, 3]],
  ['άδειας δόμησης', 'a building permit', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Κατοικία', [0, 2, 3, 4]],
  ['άδειας μικρής κλίμακας', 'a small-scale works permit', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Κατοικία', [0, 2]],
  ['πιστοποιητικού ενεργειακής απόδοσης', 'an energy performance certificate', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Κατοικία', [0, 5]],
  ['άδειας χρήσης νερού', 'a water use permit', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Ενέργεια και περιβάλλον', [1, 2, 3, 4]],
  ['άδειας θήρας', 'a hunting licence', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Ελεύθερος χρόνος', [0, 2, 5]],
  ['άδειας εκμετάλλευσης λατομείου', 'a quarry operating permit', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4]],
  ['άδειας αλιείας', 'a fishing licence', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [0, 2, 5]],
  ['άδειας λειτουργίας παιδικής χαράς', 'a playground operating certificate', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Οικογένεια', [1, 2]],
  ['άδειας μουσικής', 'a music licence for a shop', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 4]],
  ['άδειας διαμονής για εργασία', 'a residence permit for work', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Εργασία', [1, 2, 5]],
  ['άδειας λειτουργίας σχολής οδηγών', 'a driving school licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4]],
  ['άδειας οδηγού ταξί', 'a taxi driver licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Εργασία', [0, 2, 5]],
  ['βεβαίωσης οφειλής προς τον δήμο', 'a certificate of debts to the municipality', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Φορολογία', [0]],
  ['δημοτικής ενημερότητας', 'a municipal tax clearance certificate', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Φορολογία', [0]],
  ['άδειας κατάληψης πεζοδρομίου', 'a sidewalk occupation permit', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4]],
  ['άδειας τομής οδοστρώματος', 'a road excavation permit', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Κατοικία', [1, 2, 3]],
  ['άδειας τοποθέτησης διαφημιστικής πινακίδας', 'a billboard permit', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 4]],
  ['θέσης στάθμευσης ΑμεΑ', 'a disabled parking space', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Υγεία και πρόνοια', [1, 2, 4]],
  ['κάρτας στάθμευσης μόνιμου κατοίκου', 'a resident parking card', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Μεταφορές και οχήματα', [0, 2, 5]],
  ['επιδόματος αναδοχής', 'the foster care allowance', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Οικογένεια', [1, 4]],
  ['άδειας λειτουργίας βρεφονηπιακού σταθμού', 'a day nursery licence', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'Οικογένεια', [1, 2, 3, 4]],
  ['άδειας λειτουργίας κατασκήνωσης', 'a summer camp licence', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Ελεύθερος χρόνος', [1, 2, 4]],
  ['άδειας λειτουργίας ιδιωτικής κλινικής', 'a private clinic licence', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [1, 2, 3, 4]],
  ['γνωμάτευσης αναπηρίας ΚΕΠΑ', 'a disability assessment opinion', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Υγεία και πρόνοια', [0, 2]],
  ['άδειας λειτουργίας καταστήματος οπτικών', 'an optician shop licence', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'Επιχειρηματική δραστηριότητα', [1, 3, 4]],
  ['πράξης ισοτιμίας τίτλου σπουδών', 'a degree equivalence decision', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Εκπαίδευση', [0]],
  [
    'άδειας λειτουργίας κέντρου ξένων γλωσσών',
    'a foreign language school licence',
    'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ',
    'Εκπαίδευση',
    [1, 2, 3, 4],
  ],
  ['βεβαίωσης σπουδών', 'a certificate of studies', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Εκπαίδευση', [0]],
  ['άδειας λειτουργίας γυμναστηρίου', 'a gym licence', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'Ελεύθερος χρόνος', [1, 2, 4]],
  ['πιστοποίησης ψηφιακών δεξιοτήτων', 'a digital skills certification', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Εργασία', [0]],
  ['ηλεκτρονικής διεύθυνσης επίδοσης', 'an electronic address for service', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [0, 3]],
  ['άδειας εγκατάστασης κεραίας', 'an antenna installation permit', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'Ψηφιακές υπηρεσίες', [1, 3, 4]],
  ['βεβαίωσης υπαγωγής αυθαιρέτου', 'a certificate for legalised building works', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Κατοικία', [0, 3]],
  ['άδειας ηλεκτρολόγου εγκαταστάτη', 'an electrician licence', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Εργασία', [0, 2, 5]],
  [
    'άδειας συλλογής και μεταφοράς αποβλήτων',
    'a waste collection and transport permit',
    'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ',
    'Ενέργεια και περιβάλλον',
    [1, 2, 3, 4],
  ],
  ['σύνδεσης φωτοβολταϊκού σε στέγη', 'a rooftop solar connection', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Ενέργεια και περιβάλλον', [1, 3]],
  ['άδειας λειτουργίας πρατηρίου καυσίμων', 'a petrol station licence', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4]],
  ['άδειας οδικής βοήθειας', 'a roadside assistance licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Μεταφορές και οχήματα', [1, 3, 4]],
  ['δελτίου τεχνικού ελέγχου ΚΤΕΟ', 'a roadworthiness test certificate', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Μεταφορές και οχήματα', [0, 5]],
  ['άδειας αυτοκινήτου ταξί', 'a taxi vehicle licence', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'Επιχειρηματική δραστηριότητα', [1, 2, 3, 4, 5]],
];

const LAWS: [string, string, string, number, string][] = [
  ['Νόμος', '3852', '2010', 87, 'Νέα Αρχιτεκτονική της Αυτοδιοίκησης και της Αποκεντρωμένης Διοίκησης - Πρόγραμμα Καλλικράτης'],
  ['Νόμος', '3463', '2006', 114, 'Κύρωση του Κώδικα Δήμων και Κοινοτήτων'],
  ['Νόμος', '2690', '1999', 45, 'Κύρωση του Κώδικα Διοικητικής Διαδικασίας και άλλες διατάξεις'],
  ['Νόμος', '4727', '2020', 184, 'Ψηφιακή Διακυβέρνηση - Ηλεκτρονικές Επικοινωνίες'],
  ['Νόμος', '4442', '2016', 230, 'Νέο θεσμικό πλαίσιο για την άσκηση οικονομικής δραστηριότητας'],
  ['Νόμος', '4685', '2020', 92, 'Εκσυγχρονισμός περιβαλλοντικής νομοθεσίας και απλοποίηση αδειοδότησης ΑΠΕ'],
  ['Νόμος', '4495', '2017', 167, 'Έλεγχος και προστασία του Δομημένου Περιβάλλοντος'],
  ['Νόμος', '4251', '2014', 80, 'Κώδικας Μετανάστευσης και Κοινωνικής Ένταξης'],
];

const CONDITIONS: [string, string][] = [
  ['Ηλικία', 'Ο αιτών πρέπει να είναι ενήλικας'],
  ['Κατοικία', 'Ο αιτών πρέπει να έχει μόνιμη κατοικία στην Ελλάδα'],
  ['Φορολογική ενημερότητα', 'Να μην υπάρχουν ληξιπρόθεσμες οφειλές προς το Δημόσιο'],
  ['Ιθαγένεια', 'Ο αιτών πρέπει να είναι Έλληνας πολίτης ή πολίτης κράτους-μέλους της ΕΕ'],
  ['Επαγγελματικά προσόντα', 'Ο αιτών πρέπει να διαθέτει την απαιτούμενη επαγγελματική άδεια'],
  ['Ακίνητο', 'Ο χώρος πρέπει να πληροί τις προδιαγραφές του ισχύοντος κανονισμού'],
  ['Ποινικό μητρώο', 'Να μην έχει καταδικαστεί για κακούργημα'],
];

const GENERAL_EVIDENCES = ['Αίτηση', 'Αστυνομική ταυτότητα ή διαβατήριο', 'Υπεύθυνη δήλωση', 'Παράβολο', 'Πρόσφατη φωτογραφία'];
const THEMED_EVIDENCES: Record<string, string[]> = {
  'Επιχειρηματική δραστηριότητα': [
    'Βεβαίωση φορολογικής ενημερότητας',
    'Βεβαίωση ασφαλιστικής ενημερότητας',
    'Τίτλος ιδιοκτησίας ή μισθωτήριο',
    'Κάτοψη του χώρου',
    'Βεβαίωση έναρξης εργασιών',
  ],
  Κατοικία: ['Τίτλος ιδιοκτησίας ή μισθωτήριο', 'Τοπογραφικό διάγραμμα', 'Τεχνική έκθεση μηχανικού', 'Λογαριασμός κοινής ωφέλειας'],
  'Ενέργεια και περιβάλλον': ['Τοπογραφικό διάγραμμα', 'Τεχνική έκθεση μηχανικού', 'Μελέτη περιβαλλοντικών επιπτώσεων', 'Τίτλος ιδιοκτησίας ή μισθωτήριο'],
  'Υγεία και πρόνοια': ['Ιατρικό πιστοποιητικό', 'Γνωμάτευση ΚΕΠΑ', 'Πιστοποιητικό οικογενειακής κατάστασης'],
  'Μεταφορές και οχήματα': ['Ιατρικό πιστοποιητικό', 'Άδεια κυκλοφορίας', 'Ασφαλιστήριο συμβόλαιο οχήματος'],
  Εργασία: ['Τίτλος σπουδών', 'Βεβαίωση προϋπηρεσίας', 'Αντίγραφο ποινικού μητρώου'],
  Εκπαίδευση: ['Τίτλος σπουδών', 'Βεβαίωση σπουδών'],
  Οικογένεια: ['Πιστοποιητικό οικογενειακής κατάστασης', 'Ληξιαρχική πράξη γέννησης'],
};

const BUSINESS_EVENTS = new Set(['Επιχειρηματική δραστηριότητα', 'Εργασία', 'Ενέργεια και περιβάλλον']);

const STEPS: [string, string][] = [
  ['Υποβολή αίτησης', 'Ο ενδιαφερόμενος υποβάλλει την αίτηση με τα απαραίτητα δικαιολογητικά'],
  ['Έλεγχος δικαιολογητικών', 'Η αρμόδια υπηρεσία ελέγχει την πληρότητα του φακέλου'],
  ['Αυτοψία', 'Κλιμάκιο της υπηρεσίας διενεργεί αυτοψία στον χώρο'],
  ['Έκδοση απόφασης', 'Η αρμόδια υπηρεσία εκδίδει την πράξη και την κοινοποιεί στον ενδιαφερόμενο'],
  ['Παραλαβή', 'Ο ενδιαφερόμενος παραλαμβάνει το έγγραφο από την υπηρεσία ή ηλεκτρονικά'],
];

const OWNER_TITLES: Record<string, string> = {
  'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ': 'Υπουργείο Εσωτερικών',
  'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ': 'Υπουργείο Υγείας',
  'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ': 'Υπουργείο Παιδείας, Θρησκευμάτων και Αθλητισμού',
  'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ': 'Υπουργείο Υποδομών και Μεταφορών',
  'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ': 'Υπουργείο Ψηφιακής Διακυβέρνησης',
  'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ': 'Υπουργείο Περιβάλλοντος και Ενέργειας',
};

export function renderMitos(world: World, rng: Rng): OutFile[] {
  const services: { el: string; en: string; owner: string; event: string; action: number }[] = [];
  for (const [gen, en, owner, event, actions] of OBJECTS) {
    for (const a of actions) {
      services.push({ el: `${ACTIONS[a][0]} ${gen}`, en: `${ACTIONS[a][1]} ${en}`, owner, event, action: a });
    }
  }
  const ids = new Set<number>();
  const files: OutFile[] = [];
  services.forEach((s, i) => {
    let id: number;
    do id = rng.int(100000, 999999);
    while (ids.has(id));
    ids.add(id);
    const ministry = world.pool.bodies.find((b) => b.name === s.owner);
    const ownerTitle = OWNER_TITLES[s.owner] ?? s.owner;
    const acts = world.regActs.filter((r) => ministry && r.decision.body.uid === ministry.uid);
    const rules: Record<string, unknown>[] = rng.sample(LAWS, rng.int(1, 2)).map(([type, num, year, fek, desc]) => ({
      rule_type: type,
      rule_decision_number: num,
      rule_decision_year: year,
      rule_article: `Άρθρο ${rng.int(1, 120)}`,
      rule_description: desc,
      rule_gazette_doc_number: fek,
      rule_gazette_doc_issue: 'Α',
      rule_url: `https://www.et.gr/api/DownloadFeksApi/?fek_pdf=${year}01${String(fek).padStart(5, '0')}`,
    }));
    if (acts.length > 0 && rng.chance(0.6)) {
      const act = rng.pick(acts);
      rules.push({
        rule_type: 'Υπουργική Απόφαση',
        rule_decision_number: act.decision.protocolNumber.replace(/^Οικ\. /, '').split('/')[0],
        rule_decision_year: String(act.fek.year),
        rule_article: `Άρθρο ${rng.int(1, 15)}`,
        rule_description: act.title.charAt(0) + act.title.slice(1).toLowerCase(),
        rule_gazette_doc_number: act.fek.number,
        rule_gazette_doc_issue: act.fek.issue,
        rule_ada: act.decision.ada,
        rule_url: `https://diavgeia.gov.gr/decision/view/${act.decision.ada}`,
      });
    }
    const digital = rng.chance(0.55);
    const evidences = [...rng.sample(GENERAL_EVIDENCES, rng.int(1, 3)), ...rng.sample(THEMED_EVIDENCES[s.event] ?? [], rng.int(0, 3))];
    const fee = evidences.includes('Παράβολο') ? rng.pick([10, 15, 30, 50, 75, 100]) : 0;
    const steps = STEPS.filter((_, k) => k !== 2 || rng.chance(0.4));
    const maxDays = rng.pick([1, 5, 10, 15, 20, 30, 50]);
    const updated = START + rng.int(0, Math.floor((END - START) / DAY)) * DAY + rng.int(0, 86_399) * 1000;
    const body = {
      data: {
        id: String(id),
        title: { el: s.el, en: s.en },
        last_updated: isoSeconds(updated),
        metadata: {
          process: {
            official_title: s.el,
            description: `Η διαδικασία αφορά ${s.el.charAt(0).toLowerCase()}${s.el.slice(1)}. ${digital ? 'Η αίτηση υποβάλλεται και ψηφιακά μέσω του gov.gr.' : 'Η αίτηση υποβάλλεται στην αρμόδια υπηρεσία ή στα ΚΕΠ.'}`,
            org_owner: { title: ownerTitle },
            life_events: [s.event],
          },
          process_conditions: rng
            .sample(
              CONDITIONS.filter(([type]) => BUSINESS_EVENTS.has(s.event) || !['Επαγγελματικά προσόντα', 'Ακίνητο'].includes(type)),
              rng.int(1, 3),
            )
            .map(([type, name], k) => ({
              conditions_num_id: k + 1,
              conditions_type: type,
              conditions_name: name,
              conditions_alternative: false,
              conditions_url: null,
            })),
          process_evidences: evidences.map((e, k) => ({
            evidence_num_id: k + 1,
            evidence_type: { title: e },
            evidence_description: e,
            evidence_note: null,
            evidence_submission_type: digital ? ['Ψηφιακά', 'Αυτοπροσώπως'] : ['Αυτοπροσώπως'],
            evidence_alternative: false,
            evidence_url: null,
          })),
          process_evidences_cost:
            fee > 0
              ? [
                  {
                    evidence_cost_type: 'Παράβολο',
                    evidence_cost_description: 'Ηλεκτρονικό παράβολο (e-παράβολο)',
                    evidence_cost_min: fee,
                    evidence_cost_max: fee,
                    evidence_cost_url: 'https://www.gsis.gr/polites-epiheiriseis/e-paravolo',
                  },
                ]
              : [],
          process_steps: steps.map(([title, description], k) => ({
            step_num_id: k + 1,
            step_title: title,
            step_description: description,
            step_duration_min: 'P1D',
            step_duration_max: `P${Math.max(1, Math.round(maxDays / steps.length))}D`,
          })),
          process_steps_digital: digital
            ? [
                {
                  step_digital_title: 'Ηλεκτρονική αίτηση',
                  step_digital_description: 'Σύνδεση με κωδικούς Taxisnet και υποβολή της αίτησης',
                  step_digital_duration_max: 'PT30M',
                  step_digital_url: `https://www.gov.gr/ipiresies/${id}`,
                },
              ]
            : [],
          process_rules: rules,
          process_provision_digital_locations: digital
            ? [{ provision_digital_location_title: 'gov.gr', provision_digital_location_url: `https://www.gov.gr/ipiresies/${id}` }]
            : [],
          process_useful_links: [{ useful_link_title: 'Εθνικό Μητρώο Διαδικασιών', useful_link_url: `https://id.mitos.gov.gr/${id}` }],
          glance: {
            cost_min: fee,
            cost_max: fee,
            evidences_count: evidences.length,
            duration_max: `P${maxDays}D`,
            service_points: digital ? ['gov.gr', 'ΚΕΠ'] : ['ΚΕΠ', 'Αρμόδια υπηρεσία'],
          },
        },
      },
      success: true,
    };
    files.push({ path: `mitos/${seq(i + 1)}-services-extended-${id}.json`, body: json(body), records: 1 });
  });
  return files;
}
