import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { documentsContract } from './documents-contract.js';
import { searchFeaturesContract } from './search-features-contract.js';

documentsContract(t, 'elasticsearch', apiTestProvider);
searchFeaturesContract(t, 'elasticsearch', apiTestProvider);
