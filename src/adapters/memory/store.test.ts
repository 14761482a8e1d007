import { describeStoreContract } from '../contract/index.js';
import { createMemoryStore } from './store.js';

describeStoreContract('memory', async () => createMemoryStore());
