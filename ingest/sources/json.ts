// Reading an upstream JSON body: every parser's first step, with the error naming the source.

/** The body as JSON, or an error saying it is not. */
export function parseJson(source: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new Error(`${source}: body is not valid JSON (${(err as Error).message})`);
  }
}

/**
 * The body as a JSON object (not an array, a scalar or null), or an error saying what was `expected`;
 * typed as the envelope the caller reads, whose fields it still checks.
 */
export function parseJsonObject<T extends object = Record<string, unknown>>(source: string, body: string, expected: string): T {
  const value = parseJson(source, body);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: expected ${expected}`);
  return value as T;
}
