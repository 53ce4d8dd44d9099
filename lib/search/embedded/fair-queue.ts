// The reader threads' waiting line, one line per tenant (the API key a read is for), served in turn:
// with one FIFO queue, 150 searches of one key made another key's one /v1/stats wait behind all of
// them (83 ms became 6.4 s). Now it waits behind at most one call of each other tenant with calls waiting.

export class FairQueue<T> {
  /** In serving order: the first tenant gives the next call, then goes to the back if it has more. */
  private readonly lines = new Map<string, T[]>();
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(tenant: string, item: T): void {
    const line = this.lines.get(tenant);
    if (line) line.push(item);
    else this.lines.set(tenant, [item]);
    this.size++;
  }

  /** Back to the front of its tenant's line (a call a thread gave back unstarted). */
  unshift(tenant: string, item: T): void {
    const line = this.lines.get(tenant);
    if (line) line.unshift(item);
    else this.lines.set(tenant, [item]);
    this.size++;
  }

  /** The next call of the first tenant in turn that `may` take one now; undefined if none. */
  shift(may: (tenant: string) => boolean = () => true): T | undefined {
    for (const [tenant, line] of this.lines) {
      if (!may(tenant)) continue;
      const item = line.shift()!;
      this.lines.delete(tenant);
      if (line.length > 0) this.lines.set(tenant, line);
      this.size--;
      return item;
    }
    return undefined;
  }

  /** Takes `item` out of its tenant's line; false if it was not waiting. */
  remove(tenant: string, item: T): boolean {
    const line = this.lines.get(tenant);
    const at = line?.indexOf(item) ?? -1;
    if (at === -1) return false;
    line!.splice(at, 1);
    if (line!.length === 0) this.lines.delete(tenant);
    this.size--;
    return true;
  }

  /** Empties the queue, returning what waited. */
  drain(): T[] {
    const all = [...this.lines.values()].flat();
    this.lines.clear();
    this.size = 0;
    return all;
  }
}
