// Diavgeia `GET /search` pages: {"decisions":[…],"info":{query,page,size,actualSize,total,order}}.
// The harvest walks submission-date windows of at most 180 days (the server clamps longer ranges), newest
// first within a window, 100 decisions a page; timestamps are epoch milliseconds as the live API sends.
import { DAY, START, END, isoDate, compact } from '../dates.js';
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { Decision, World } from '../world.js';

const PAGE = 100;
const WINDOW_DAYS = 180;

function render(rng: Rng, d: Decision): Record<string, unknown> {
  const signer = d.body.signers[d.type === 'Β.2.2' || d.type === 'Β.1.3' ? 1 : 0];
  const unit = d.body.units[rng.int(0, d.body.units.length - 1)];
  return {
    protocolNumber: d.protocolNumber,
    subject: d.subject,
    issueDate: d.issueDay,
    organizationId: d.body.uid,
    signerIds: [signer.id],
    unitIds: [unit.id],
    decisionTypeId: d.type,
    thematicCategoryIds: d.thematic,
    extraFieldValues: d.extra,
    privateData: d.privateData,
    ada: d.ada,
    publishTimestamp: d.published,
    submissionTimestamp: d.submitted,
    versionId: rng.uuid(),
    status: 'PUBLISHED',
    url: `https://diavgeia.gov.gr/luminapi/api/decisions/${d.ada}`,
    documentUrl: `https://diavgeia.gov.gr/doc/${d.ada}`,
    documentChecksum: null,
    attachments: [],
    warnings: null,
    correctedVersionId: d.corrected ? rng.uuid() : null,
  };
}

export function renderDiavgeia(world: World, rng: Rng): OutFile[] {
  const files: OutFile[] = [];
  let n = 1;
  for (let from = START; from <= END; from += WINDOW_DAYS * DAY) {
    const to = from + WINDOW_DAYS * DAY - 1000;
    const inWindow = world.decisions
      .filter((d) => d.submitted >= from && d.submitted <= to)
      .sort((a, b) => b.submitted - a.submitted || (a.ada < b.ada ? -1 : 1));
    const query = `submissionTimestamp:[DT(${isoDate(from)}T00:00:00) TO DT(${isoDate(to)}T23:59:59)] AND status:"Αναρτημένη"`;
    const pages = Math.max(1, Math.ceil(inWindow.length / PAGE));
    for (let page = 0; page < pages; page++) {
      const slice = inWindow.slice(page * PAGE, (page + 1) * PAGE);
      const body = {
        decisions: slice.map((d) => render(rng, d)),
        info: { query, page, size: PAGE, actualSize: slice.length, total: inWindow.length, order: 'recent' },
      };
      files.push({ path: `diavgeia/${seq(n++)}-search-${compact(from)}-p${page}.json`, body: json(body), records: slice.length });
    }
  }
  return files;
}
