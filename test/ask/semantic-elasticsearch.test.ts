import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { semanticContract } from './semantic-contract.js';

semanticContract(t, 'elasticsearch', apiTestProvider);
