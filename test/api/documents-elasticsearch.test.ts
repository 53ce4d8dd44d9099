import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { documentsContract } from './documents-contract.js';

documentsContract(t, 'elasticsearch', apiTestProvider);
