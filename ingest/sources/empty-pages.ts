// A page that comes back empty although its envelope says more follow is asked for again before it is
// taken as the end: a passing upstream fault taken for the end skipped the records after it, and the
// checkpoint moved past them. One that stays empty is still the end (logged): an upstream whose
// envelope is wrong at its real end must not fail every run.
import type { FetchContext } from './types.js';

export const EMPTY_PAGE_RETRIES = 2;
const EMPTY_PAGE_WAIT_MS = 2_000;

/** `get` once, then again (after a growing wait) while `suspect` says the page is falsely empty. */
export async function unlessFalselyEmpty<T>(ctx: FetchContext, where: object, get: () => Promise<T>, suspect: (page: T) => boolean): Promise<T> {
  let page = await get();
  for (let attempt = 1; attempt <= EMPTY_PAGE_RETRIES && suspect(page); attempt++) {
    ctx.log.warn({ ...where, attempt }, 'a page came back empty although its envelope says more follow; asking again');
    await ctx.http.pause(EMPTY_PAGE_WAIT_MS * attempt);
    page = await get();
  }
  if (suspect(page)) ctx.log.warn(where, 'a page stayed empty although its envelope says more follow; taken as the end');
  return page;
}
