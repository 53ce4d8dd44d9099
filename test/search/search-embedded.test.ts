// The embedded engine under the shared contract suite (search-contract.ts), twice: default tuning with
// reads on reader threads, as the API runs it, and on the calling thread with every term forced onto
// the common-term lists. What only this engine has is in the files beside it: opening the index file
// (search-embedded-opening), indexes of older text versions (search-embedded-text-versions), generations
// and rebuilds (search-embedded-rebuild), ranking exactness and paging (search-embedded-ranking,
// search-embedded-pruned); its query parser and tokenizer are unit tests (test/embedded/embedded-text).
import t from 'tap';
import { EmbeddedProvider, type Tuning } from '../../lib/search/embedded.js';
import { indexFiles } from '../helpers/embedded-index.js';
import { CONTRACT_DIMENSION, searchContract } from './search-contract.js';

const newFile = indexFiles(t);

function opener(tuning?: Partial<Tuning>, readers = 0) {
  return async () => {
    const provider = new EmbeddedProvider({ file: newFile(), dimension: CONTRACT_DIMENSION, embeddingModel: 'test/model', tuning, readers });
    return { provider, cleanup: () => provider.close() };
  };
}

searchContract(t, 'embedded, reads on two reader threads', opener(undefined, 2));
// Every term gets a list of two, trimmed at three: the list path, its certification fallbacks, trims and
// lazy rebuilds all run under the same contract.
searchContract(t, 'embedded, common-term lists forced', opener({ hotMinDf: 1, hotListSize: 2, hotListMax: 3 }));
