// Risk indicators: named rules over a report's document facts, after opentender.eu's and the
// Digiwhist/GTI integrity indicators (docs/risk-indicators.md says where each comes from). Each rule
// says `flagged` with its evidence documents, `clear`, or `not_assessable` when the data cannot tell.
import { partyKey, isEntity, type DocumentFacts, type Entity, type Party } from './facts.js';

export type Lang = 'el' | 'en';
export type IndicatorStatus = 'flagged' | 'clear' | 'not_assessable';

export interface Indicator {
  id: string;
  name: string;
  status: IndicatorStatus;
  threshold: string;
  /** Points this indicator adds to risk_score when flagged. */
  weight: number;
  evidence: string[];
  explanation: string;
}

export type { Entity };

/** Procurement thresholds in EUR without VAT: Greek direct award (Law 4412/2016 art. 118), EU 2024-25. */
export const PROCUREMENT_THRESHOLDS = [30_000, 143_000, 221_000, 5_538_000];
export const NEAR_THRESHOLD_BAND = 0.1;
export const LARGE_CONTRACT_EUR = 143_000;
export const LATE_DAYS = 30;
const DAY_MS = 86_400_000;

type Outcome = { status: IndicatorStatus; evidence?: string[]; figures?: Record<string, string | number> };

interface Rule {
  id: string;
  name: Record<Lang, string>;
  threshold: Record<Lang, string>;
  weight: number;
  assess(facts: DocumentFacts[], entity: Entity): Outcome;
  say: Record<Lang, Record<IndicatorStatus, (f: Record<string, string | number>) => string>>;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const contractsOf = (facts: DocumentFacts[]) => facts.filter((f) => f.kind === 'contract');
const roleOf = (f: DocumentFacts, e: Entity): 'buyer' | 'supplier' | null =>
  f.suppliers.some((p) => isEntity(p, e)) ? 'supplier' : f.buyers.some((p) => isEntity(p, e)) ? 'buyer' : null;
/** The other side of a contract from the entity's point of view. */
const counterparties = (f: DocumentFacts, e: Entity): Party[] => (roleOf(f, e) === 'supplier' ? f.buyers : roleOf(f, e) === 'buyer' ? f.suppliers : []);

export const RULES: Rule[] = [
  {
    id: 'single_bidder',
    name: { en: 'Single bidder', el: 'Μία μόνο προσφορά' },
    threshold: {
      en: '25% or more of contracts with a stated bidder count received one tender',
      el: '25% ή περισσότερες από τις συμβάσεις με γνωστό αριθμό προσφορών έλαβαν μία προσφορά',
    },
    weight: 20,
    assess(facts) {
      const known = contractsOf(facts).filter((f) => f.bidders !== null);
      if (known.length === 0) return { status: 'not_assessable' };
      const single = known.filter((f) => f.bidders === 1);
      const share = single.length / known.length;
      return {
        status: single.length > 0 && share >= 0.25 ? 'flagged' : 'clear',
        evidence: single.map((f) => f.id),
        figures: { n: single.length, of: known.length, share: pct(share) },
      };
    },
    say: {
      en: {
        flagged: (f) => `${f.n} of ${f.of} contracts with a bidder count had a single tender (${f.share}).`,
        clear: (f) => `${f.n} of ${f.of} contracts with a bidder count had a single tender.`,
        not_assessable: () => 'Not assessable: no source states the number of tenders for these contracts.',
      },
      el: {
        flagged: (f) => `${f.n} από ${f.of} συμβάσεις με γνωστό αριθμό προσφορών είχαν μία προσφορά (${f.share}).`,
        clear: (f) => `${f.n} από ${f.of} συμβάσεις με γνωστό αριθμό προσφορών είχαν μία προσφορά.`,
        not_assessable: () => 'Δεν εκτιμάται: καμία πηγή δεν αναφέρει τον αριθμό προσφορών γι’ αυτές τις συμβάσεις.',
      },
    },
  },
  {
    id: 'direct_awards',
    name: { en: 'Share of direct awards', el: 'Ποσοστό απευθείας αναθέσεων' },
    threshold: {
      en: 'more than 50% of contracts with a stated procedure, and at least 2, were direct awards',
      el: 'πάνω από 50% των συμβάσεων με γνωστή διαδικασία, και τουλάχιστον 2, ήταν απευθείας αναθέσεις',
    },
    weight: 15,
    assess(facts) {
      const known = contractsOf(facts).filter((f) => f.direct !== null);
      if (known.length === 0) return { status: 'not_assessable' };
      const direct = known.filter((f) => f.direct);
      const share = direct.length / known.length;
      return {
        status: direct.length >= 2 && share > 0.5 ? 'flagged' : 'clear',
        evidence: direct.map((f) => f.id),
        figures: { n: direct.length, of: known.length, share: pct(share) },
      };
    },
    say: {
      en: {
        flagged: (f) => `${f.n} of ${f.of} contracts with a known procedure were direct awards (${f.share}).`,
        clear: (f) => `${f.n} of ${f.of} contracts with a known procedure were direct awards (${f.share}).`,
        not_assessable: () => 'Not assessable: no contract states its procedure.',
      },
      el: {
        flagged: (f) => `${f.n} από ${f.of} συμβάσεις με γνωστή διαδικασία ήταν απευθείας αναθέσεις (${f.share}).`,
        clear: (f) => `${f.n} από ${f.of} συμβάσεις με γνωστή διαδικασία ήταν απευθείας αναθέσεις (${f.share}).`,
        not_assessable: () => 'Δεν εκτιμάται: καμία σύμβαση δεν αναφέρει τη διαδικασία της.',
      },
    },
  },
  {
    id: 'near_threshold',
    name: { en: 'Values just under procurement thresholds', el: 'Αξίες λίγο κάτω από τα όρια διαγωνισμού' },
    threshold: {
      en: 'at least 2 contracts valued within 10% below 30,000, 143,000, 221,000 or 5,538,000 EUR',
      el: 'τουλάχιστον 2 συμβάσεις με αξία έως 10% κάτω από 30.000, 143.000, 221.000 ή 5.538.000 EUR',
    },
    weight: 15,
    assess(facts) {
      const valued = contractsOf(facts).filter((f) => f.value !== null);
      if (valued.length === 0) return { status: 'not_assessable' };
      const near = valued.filter((f) => PROCUREMENT_THRESHOLDS.some((t) => f.value! < t && f.value! >= t * (1 - NEAR_THRESHOLD_BAND)));
      return { status: near.length >= 2 ? 'flagged' : 'clear', evidence: near.map((f) => f.id), figures: { n: near.length, of: valued.length } };
    },
    say: {
      en: {
        flagged: (f) => `${f.n} of ${f.of} valued contracts sit just under a threshold that would require a wider competition.`,
        clear: (f) => `${f.n} of ${f.of} valued contracts sit just under a procurement threshold.`,
        not_assessable: () => 'Not assessable: no contract states a value in EUR.',
      },
      el: {
        flagged: (f) => `${f.n} από ${f.of} συμβάσεις με αξία βρίσκονται λίγο κάτω από όριο που θα απαιτούσε ευρύτερο διαγωνισμό.`,
        clear: (f) => `${f.n} από ${f.of} συμβάσεις με αξία βρίσκονται λίγο κάτω από όριο διαγωνισμού.`,
        not_assessable: () => 'Δεν εκτιμάται: καμία σύμβαση δεν αναφέρει αξία σε EUR.',
      },
    },
  },
  {
    id: 'value_overrun',
    name: { en: 'Payments or amendments above the awarded amount', el: 'Πληρωμές ή τροποποιήσεις πάνω από το ποσό ανάθεσης' },
    threshold: {
      en: 'payments or amendments to one counterparty exceed its awarded value by more than 10%',
      el: 'πληρωμές ή τροποποιήσεις προς έναν αντισυμβαλλόμενο ξεπερνούν την αξία ανάθεσης κατά πάνω από 10%',
    },
    weight: 15,
    assess(facts, entity) {
      const awarded = new Map<string, { value: number; ids: string[] }>();
      const paid = new Map<string, { value: number; ids: string[] }>();
      for (const f of facts) {
        if (f.value === null) continue;
        const target = f.kind === 'contract' ? awarded : f.kind === 'payment' || f.kind === 'modification' ? paid : null;
        if (!target) continue;
        // The pair (buyer, supplier) with the entity on one side; unknown roles pair all parties.
        for (const other of counterparties(f, entity).length ? counterparties(f, entity) : [...f.buyers, ...f.suppliers]) {
          const e = target.get(partyKey(other)) ?? { value: 0, ids: [] };
          e.value += f.value;
          e.ids.push(f.id);
          target.set(partyKey(other), e);
        }
      }
      const pairs = [...paid.keys()].filter((k) => awarded.has(k));
      if (pairs.length === 0) return { status: 'not_assessable' };
      const over = pairs.filter((k) => paid.get(k)!.value > awarded.get(k)!.value * 1.1);
      const evidence = over.flatMap((k) => [...awarded.get(k)!.ids, ...paid.get(k)!.ids]);
      return { status: over.length > 0 ? 'flagged' : 'clear', evidence: [...new Set(evidence)], figures: { n: over.length, of: pairs.length } };
    },
    say: {
      en: {
        flagged: (f) => `For ${f.n} of ${f.of} counterparties, payments or amendments exceed the awarded value by more than 10%.`,
        clear: (f) => `For none of ${f.of} counterparties do payments or amendments exceed the awarded value by more than 10%.`,
        not_assessable: () => 'Not assessable: no counterparty has both an award and a payment or amendment in the data.',
      },
      el: {
        flagged: (f) => `Για ${f.n} από ${f.of} αντισυμβαλλόμενους οι πληρωμές ή τροποποιήσεις ξεπερνούν την αξία ανάθεσης κατά πάνω από 10%.`,
        clear: (f) => `Για κανέναν από ${f.of} αντισυμβαλλόμενους οι πληρωμές ή τροποποιήσεις δεν ξεπερνούν την αξία ανάθεσης κατά πάνω από 10%.`,
        not_assessable: () => 'Δεν εκτιμάται: κανένας αντισυμβαλλόμενος δεν έχει και ανάθεση και πληρωμή ή τροποποίηση στα δεδομένα.',
      },
    },
  },
  {
    id: 'late_publication',
    name: { en: 'Late publication', el: 'Καθυστερημένη δημοσίευση' },
    threshold: {
      en: `an award or contract published more than ${LATE_DAYS} days after it was issued or signed`,
      el: `ανάθεση ή σύμβαση δημοσιευμένη πάνω από ${LATE_DAYS} ημέρες μετά την έκδοση ή υπογραφή της`,
    },
    weight: 10,
    assess(facts) {
      const dated = contractsOf(facts).filter((f) => f.actDate !== null);
      if (dated.length === 0) return { status: 'not_assessable' };
      const late = dated.filter((f) => Date.parse(f.published_at) - Date.parse(`${f.actDate}T00:00:00Z`) > (LATE_DAYS + 1) * DAY_MS);
      return { status: late.length > 0 ? 'flagged' : 'clear', evidence: late.map((f) => f.id), figures: { n: late.length, of: dated.length } };
    },
    say: {
      en: {
        flagged: (f) => `${f.n} of ${f.of} dated awards or contracts were published more than ${LATE_DAYS} days after being issued or signed.`,
        clear: (f) => `All ${f.of} dated awards or contracts were published within ${LATE_DAYS} days.`,
        not_assessable: () => 'Not assessable: no award or contract states when it was issued or signed.',
      },
      el: {
        flagged: (f) => `${f.n} από ${f.of} αναθέσεις ή συμβάσεις με ημερομηνία δημοσιεύθηκαν πάνω από ${LATE_DAYS} ημέρες μετά την έκδοση ή υπογραφή τους.`,
        clear: (f) => `Και οι ${f.of} αναθέσεις ή συμβάσεις με ημερομηνία δημοσιεύθηκαν εντός ${LATE_DAYS} ημερών.`,
        not_assessable: () => 'Δεν εκτιμάται: καμία ανάθεση ή σύμβαση δεν αναφέρει πότε εκδόθηκε ή υπογράφηκε.',
      },
    },
  },
  {
    id: 'counterparty_concentration',
    name: { en: 'Concentration on one buyer', el: 'Συγκέντρωση σε έναν αγοραστή' },
    threshold: {
      en: 'one counterparty holds more than 50% of the value of at least 3 valued contracts',
      el: 'ένας αντισυμβαλλόμενος συγκεντρώνει πάνω από 50% της αξίας τουλάχιστον 3 συμβάσεων με αξία',
    },
    weight: 15,
    assess(facts, entity): Outcome {
      const valued = contractsOf(facts).filter((f) => f.value !== null && counterparties(f, entity).length > 0);
      if (valued.length < 3) return { status: 'not_assessable', figures: { of: valued.length } };
      const byParty = new Map<string, { name: string; value: number; ids: string[] }>();
      for (const f of valued) {
        const p = counterparties(f, entity)[0]!;
        const e = byParty.get(partyKey(p)) ?? { name: p.name, value: 0, ids: [] };
        e.value += f.value!;
        e.ids.push(f.id);
        byParty.set(partyKey(p), e);
      }
      const total = valued.reduce((s, f) => s + f.value!, 0);
      const top = [...byParty.values()].sort((a, b) => b.value - a.value)[0]!;
      const share = top.value / total;
      return {
        status: share > 0.5 ? 'flagged' : 'clear',
        evidence: share > 0.5 ? top.ids : [],
        figures: { name: top.name, share: pct(share), of: valued.length },
      };
    },
    say: {
      en: {
        flagged: (f) => `${f.name} accounts for ${f.share} of the value of ${f.of} contracts.`,
        clear: (f) => `The largest counterparty, ${f.name}, accounts for ${f.share} of the value of ${f.of} contracts.`,
        not_assessable: (f) => `Not assessable: ${f.of ?? 0} valued contracts with a known counterparty; at least 3 are needed.`,
      },
      el: {
        flagged: (f) => `Ο φορέας ${f.name} συγκεντρώνει το ${f.share} της αξίας ${f.of} συμβάσεων.`,
        clear: (f) => `Ο μεγαλύτερος αντισυμβαλλόμενος, ${f.name}, συγκεντρώνει το ${f.share} της αξίας ${f.of} συμβάσεων.`,
        not_assessable: (f) => `Δεν εκτιμάται: ${f.of ?? 0} συμβάσεις με αξία και γνωστό αντισυμβαλλόμενο· χρειάζονται τουλάχιστον 3.`,
      },
    },
  },
  {
    id: 'new_supplier_large_contract',
    name: { en: 'New supplier winning large contracts', el: 'Νέος προμηθευτής με μεγάλες συμβάσεις' },
    threshold: {
      en: `a contract of ${LARGE_CONTRACT_EUR.toLocaleString('en')} EUR or more won within 365 days of the supplier's first appearance`,
      el: `σύμβαση ${LARGE_CONTRACT_EUR.toLocaleString('el')} EUR ή περισσότερο εντός 365 ημερών από την πρώτη εμφάνιση του προμηθευτή`,
    },
    weight: 10,
    assess(facts, entity) {
      const won = contractsOf(facts).filter((f) => roleOf(f, entity) === 'supplier');
      if (won.length === 0) return { status: 'not_assessable' };
      const first = Math.min(...facts.map((f) => Date.parse(f.published_at)));
      const early = won.filter((f) => f.value !== null && f.value >= LARGE_CONTRACT_EUR && Date.parse(f.published_at) - first <= 365 * DAY_MS);
      return {
        status: early.length > 0 ? 'flagged' : 'clear',
        evidence: early.map((f) => f.id),
        figures: { n: early.length, first: new Date(first).toISOString().slice(0, 10) },
      };
    },
    say: {
      en: {
        flagged: (f) => `${f.n} large contracts were won within a year of the first appearance in the data (${f.first}).`,
        clear: (f) => `No large contract was won within a year of the first appearance in the data (${f.first}).`,
        not_assessable: () => 'Not assessable: the entity is not named as supplier of any contract.',
      },
      el: {
        flagged: (f) => `${f.n} μεγάλες συμβάσεις ανατέθηκαν μέσα σε έναν χρόνο από την πρώτη εμφάνιση στα δεδομένα (${f.first}).`,
        clear: (f) => `Καμία μεγάλη σύμβαση μέσα σε έναν χρόνο από την πρώτη εμφάνιση στα δεδομένα (${f.first}).`,
        not_assessable: () => 'Δεν εκτιμάται: η οντότητα δεν εμφανίζεται ως ανάδοχος σε καμία σύμβαση.',
      },
    },
  },
];

export function assessIndicators(facts: DocumentFacts[], entity: Entity, lang: Lang): Indicator[] {
  return RULES.map((rule) => {
    const out = rule.assess(facts, entity);
    return {
      id: rule.id,
      name: rule.name[lang],
      status: out.status,
      threshold: rule.threshold[lang],
      weight: rule.weight,
      evidence: out.status === 'flagged' ? (out.evidence ?? []) : [],
      explanation: rule.say[lang][out.status](out.figures ?? {}),
    };
  });
}

/** 0..100: the weights of the flagged indicators (they add up to 100). Flagging one more never lowers it. */
export function riskScore(indicators: Indicator[]): number {
  return Math.min(
    100,
    indicators.reduce((s, i) => s + (i.status === 'flagged' ? i.weight : 0), 0),
  );
}
