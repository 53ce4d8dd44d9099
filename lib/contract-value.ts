// An entity's contract value, by one definition for GET /v1/entity, the MCP resolve_entity tool and
// reports (docs/api.md "Entity resolution", total_contract_value): the EUR amounts of its awards and contracts, where
// documents that share an ΑΔΑ (a KIMDIS contract and the Diavgeia award it names) record one
// procurement, counted once at its largest amount.

/** Documents whose amount is a contract's value: awards and contracts, not notices or payments. */
export const CONTRACT_CATEGORIES: ReadonlySet<string> = new Set(['award', 'contract']);

export interface ValuedDocument {
  id: string;
  category: string;
  amount: number | null;
  currency: string | null;
  /** The normalized ΑΔΑs the document carries. */
  adas: readonly string[];
}

/** A counted amount in whole cents: sums are kept in cents, so adding and taking away stays exact. */
export const toCents = (amount: number) => Math.round(amount * 100);

/**
 * Whether each of `n` documents, numbered in rank order (the largest amount first, then by id), counts:
 * documents sharing a key (`links`: a document and the number of a key it carries, here an ΑΔΑ),
 * directly or through others, are one procurement, and the first of each counts. The rule itself; the
 * embedded engine applies it to the ranks and links its SQL gives.
 */
export function firstOfEachProcurement(n: number, links: Iterable<readonly [doc: number, key: number]>): boolean[] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const byKey = new Map<number, number>();
  for (const [doc, key] of links) {
    const other = byKey.get(key);
    if (other === undefined) byKey.set(key, doc);
    else {
      // The root is the component's first document: the lower of the two roots.
      const [a, b] = [find(doc), find(other)];
      if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
    }
  }
  return parent.map((_, i) => find(i) === i);
}

/**
 * What each award or contract counts for, by id: its amount when it is the largest of the documents
 * it shares an ΑΔΑ with (the first by id among equals), else 0. Documents that are not contracts or
 * have no EUR amount are left out.
 */
export function countedContractValues(docs: readonly ValuedDocument[]): Map<string, number> {
  const ranked = docs
    .filter((d) => CONTRACT_CATEGORIES.has(d.category) && d.amount !== null && d.amount > 0 && d.currency === 'EUR')
    .sort((a, b) => b.amount! - a.amount! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keys = new Map<string, number>();
  const keyOf = (ada: string) => {
    let key = keys.get(ada);
    if (key === undefined) keys.set(ada, (key = keys.size));
    return key;
  };
  const links = ranked.flatMap((d, i) => d.adas.map((ada) => [i, keyOf(ada)] as const));
  const first = firstOfEachProcurement(ranked.length, links);
  return new Map(ranked.map((d, i) => [d.id, first[i] ? d.amount! : 0]));
}

/** The sum of countedContractValues, each amount in cents. */
export function contractValue(docs: readonly ValuedDocument[]): number {
  let cents = 0;
  for (const v of countedContractValues(docs).values()) cents += toCents(v);
  return cents / 100;
}
