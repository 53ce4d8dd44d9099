// The server's embedder when the model comes later: the lexical fallback until the model fetched at the
// first start has been loaded and the index rebuilt with its vectors (ingest/model-switch.ts), then the
// model, without a restart. Each call goes to the embedder current when it is made.
import type { Embedder, EmbedKind } from './embedder.js';

export class SwitchableEmbedder implements Embedder {
  constructor(private current: Embedder) {}

  get id(): string {
    return this.current.id;
  }

  get dimension(): number {
    return this.current.dimension;
  }

  get fallback(): boolean {
    return this.current.fallback;
  }

  get endpoint(): string | undefined {
    return this.current.endpoint;
  }

  embed(texts: string[], kind?: EmbedKind, signal?: AbortSignal): Promise<number[][]> {
    return this.current.embed(texts, kind, signal);
  }

  switchTo(next: Embedder): void {
    this.current = next;
  }
}
