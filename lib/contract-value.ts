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
 * What each award or contract counts for, by id: its amount when it is the largest of the documents
 * it shares an ΑΔΑ with (the first by id among equals), else 0. Documents that are not contracts or
 * have no EUR amount are left out.
 */
export function countedContractValues(docs: readonly ValuedDocument[]): Map<string, number> {
  const counted = docs
    .filter((d) => CONTRACT_CATEGORIES.has(d.category) && d.amount !== null && d.amount > 0 && d.currency === 'EUR')
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parent = counted.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const byAda = new Map<string, number>();
  counted.forEach((d, i) => {
    for (const ada of d.adas) {
      const j = byAda.get(ada);
      if (j === undefined) byAda.set(ada, i);
      else parent[find(i)] = find(j);
    }
  });
  const largest = new Map<number, number>();
  counted.forEach((d, i) => {
    const root = find(i);
    const best = largest.get(root);
    if (best === undefined || d.amount! > counted[best]!.amount!) largest.set(root, i);
  });
  const chosen = new Set(largest.values());
  return new Map(counted.map((d, i) => [d.id, chosen.has(i) ? d.amount! : 0]));
}

/** The sum of countedContractValues, each amount in cents. */
export function contractValue(docs: readonly ValuedDocument[]): number {
  let cents = 0;
  for (const v of countedContractValues(docs).values()) cents += toCents(v);
  return cents / 100;
}
