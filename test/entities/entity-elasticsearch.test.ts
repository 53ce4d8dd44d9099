import t from 'tap';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { entityContract } from './entity-contract.js';

t.setTimeout(300_000);

entityContract(t, 'elasticsearch', apiTestProvider);
