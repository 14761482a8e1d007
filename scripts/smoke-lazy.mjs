// Part of scripts/smoke-built.sh: the built server loads some code on first use (feeds and the
// sitemap, rendered HTML, the markdown export, metrics) from chunks beside dist/main.js. This
// asks for each once, so a chunk the build broke fails CI rather than a user's first feed.
// Usage: node scripts/smoke-lazy.mjs <api base> <email> <password> <metrics url>
const [base, email, password, metricsUrl] = process.argv.slice(2);

async function expectOk(label, url, init, check) {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok || !check(text)) {
    console.error(`smoke: ${label} answered ${response.status}: ${text.slice(0, 500)}`);
    process.exit(1);
  }
  return text;
}

const json = (body) => ({ 'Content-Type': 'application/json', ...body });
const login = JSON.parse(
  await expectOk(
    'login',
    `${base}/auth/login`,
    { method: 'POST', headers: json({}), body: JSON.stringify({ email, password }) },
    () => true,
  ),
);
const auth = { Authorization: `Bearer ${login.accessToken}` };
const post = JSON.parse(
  await expectOk(
    'createPost',
    `${base}/posts`,
    {
      method: 'POST',
      headers: json(auth),
      body: JSON.stringify({ title: 'Smoke & mirrors', body: '# Smoke\n\nA *built* server.', tags: ['smoke'], status: 'published' }),
    },
    () => true,
  ),
);
await expectOk('include=html', `${base}/content/posts/slug/${post.slug}?include=html`, {}, (t) =>
  JSON.parse(t).html?.includes('<h1>Smoke</h1>'),
);
await expectOk(
  'exportPost',
  `${base}/posts/${post.id}/export`,
  { headers: auth },
  (t) => t.startsWith('---\n') && t.includes('title: Smoke & mirrors'),
);
await expectOk('feed.atom', `${base}/content/feed.atom`, {}, (t) => t.includes('<feed') && t.includes('Smoke &amp; mirrors'));
await expectOk('feed.rss', `${base}/content/feed.rss`, {}, (t) => t.includes('<rss'));
await expectOk('sitemap.xml', `${base}/content/sitemap.xml`, {}, (t) => t.includes('<urlset') && t.includes(post.slug));
await expectOk('metrics', metricsUrl, {}, (t) => t.includes('margin_http_requests_total{operation="createPost"'));
console.log('built server: feeds, sitemap, rendered HTML, markdown export and metrics load and answer');
