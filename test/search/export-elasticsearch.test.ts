import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { exportContract } from './export-contract.js';

exportContract(t, 'elasticsearch', apiTestProvider);
