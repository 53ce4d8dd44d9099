import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openSqlite } from '../../lib/sqlite.js';

t.test('when a database file cannot be opened, then the error names the file', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-sqlite-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'keys.db');
  fs.mkdirSync(file); // a folder where the file should be, as a read-only or odd data directory gives
  t.throws(() => openSqlite(file), { code: 'SQLITE_CANTOPEN', message: `unable to open database file ${file} (is its folder writable?)` });
});
