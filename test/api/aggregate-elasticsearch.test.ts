import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { aggregateContract } from './aggregate-contract.js';

aggregateContract(t, 'elasticsearch', apiTestProvider);
