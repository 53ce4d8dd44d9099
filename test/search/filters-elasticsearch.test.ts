import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { filtersContract } from './filters-contract.js';

filtersContract(t, 'elasticsearch', apiTestProvider);
