import { Hono } from 'hono';
import { createMemoryStore } from './src/adapters/memory/store.js';
import { testServer, JWT_SECRET } from './test/support/http.js';
const store = createMemoryStore();
const t = await testServer({ store });
const { accessToken } = await t.login();
const created = await t.app.request('/api/v1/posts', { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Hello', excerpt: 'e', body: 'word '.repeat(200), tags: ['a'], status: 'draft' }) });
const post = await created.json() as any;
const bare = new Hono(); bare.get('/api/v1/posts/:id', (c) => c.json(post));
async function bench(label: string, f: () => Promise<Response>) {
  for (let i = 0; i < 3000; i++) await (await f()).text();
  const n = 60000; const t0 = performance.now();
  for (let i = 0; i < n; i++) await (await f()).text();
  console.log(label, ((performance.now() - t0) * 1000 / n).toFixed(1), 'µs/req');
}
const headers = { authorization: `Bearer ${accessToken}` };

await bench('api get (memory)', () => t.app.request(`/api/v1/posts/${post.id}`, { headers }));


