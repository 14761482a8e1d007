/**
 * Deterministic, realistic-looking post content: English sentences about software and writing,
 * markdown bodies of about 1 KB, a few tags from a small set, mixed statuses.
 */

/** mulberry32: a small seeded generator, so every run seeds the same text. */
export function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SUBJECTS = [
  'The cache',
  'Our build pipeline',
  'A small team',
  'The query planner',
  'Every request',
  'The editor',
  'This release',
  'The new index',
  'Most readers',
  'The deploy script',
  'A good default',
  'The review process',
  'Our test suite',
  'The database',
  'A single function',
  'The style guide',
  'The first draft',
  'Each migration',
  'The search page',
  'The front page',
];
const VERBS = [
  'reduces',
  'changes',
  'explains',
  'depends on',
  'keeps',
  'improves',
  'hides',
  'needs',
  'replaces',
  'measures',
  'simplifies',
  'slows down',
  'protects',
  'documents',
  'shapes',
];
const OBJECTS = [
  'the latency of the slowest page',
  'the way we write drafts',
  'a plain markdown file',
  'the number of round trips',
  'most of the memory we use',
  'the cost of every deploy',
  'how readers find older posts',
  'the shape of the data',
  'the time it takes to publish',
  'a surprising amount of code',
  'the contract between client and server',
  'our weekly release',
  'the list of open questions',
  'every tag on the archive page',
  'the size of the response',
];
const TAILS = [
  '',
  '',
  ' in practice',
  ' when the load grows',
  ' for most of the day',
  ' without anyone noticing',
  ' more than we expected',
  ' after the last refactor',
  ' on a cold start',
  ' once the data grows',
];
const TOPICS = [
  'caching',
  'query planning',
  'writing drafts',
  'markdown tables',
  'release notes',
  'slow pages',
  'keyset pagination',
  'connection pools',
  'editorial workflow',
  'API contracts',
  'search',
  'static sites',
  'image sizes',
  'feed readers',
  'code review',
  'small teams',
];
const OPENERS = ['Notes on', 'A week of', 'What we learned about', 'Rethinking', 'A short guide to', 'Living with'];

export const TAGS = ['javascript', 'postgres', 'design', 'performance', 'testing', 'devops', 'security', 'markdown', 'api', 'writing'];

/** A word that occurs in roughly half of the bodies, for a `q` search over many posts. */
export const COMMON_WORD = 'latency';

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

export function sentence(rnd: () => number): string {
  return `${pick(rnd, SUBJECTS)} ${pick(rnd, VERBS)} ${pick(rnd, OBJECTS)}${pick(rnd, TAILS)}.`;
}

const paragraph = (rnd: () => number, n: number) => Array.from({ length: n }, () => sentence(rnd)).join(' ');

export interface PostInput {
  title: string;
  excerpt: string;
  body: string;
  tags: string[];
  status: 'draft' | 'published';
}

/** Post number `n`: a unique title, about 1 KB of markdown, 1–3 tags, 60% published. */
export function postInput(n: number, label = ''): PostInput {
  const rnd = random(n * 7919 + 17);
  const title = `${pick(rnd, OPENERS)} ${pick(rnd, TOPICS)} ${label}${n}`;
  const body = [
    `# ${title}`,
    paragraph(rnd, 4),
    `## ${pick(rnd, OPENERS)} ${pick(rnd, TOPICS)}`,
    paragraph(rnd, 3),
    Array.from({ length: 3 }, () => `- ${sentence(rnd)}`).join('\n'),
    paragraph(rnd, 2),
  ].join('\n\n');
  const tags = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(rnd, TAGS)))];
  return { title, excerpt: sentence(rnd), body, tags, status: rnd() < 0.6 ? 'published' : 'draft' };
}

/** Distinct sentences for SQL seeding, which assembles bodies from them. */
export function sentences(count: number): string[] {
  const rnd = random(42);
  const out = new Set<string>();
  while (out.size < count) out.add(sentence(rnd));
  return [...out];
}

/**
 * Syllables of the made-up topic words, each consonant with one vowel: a word's first five letters
 * name it alone (the prefix query of bench/scale.ts finds one word).
 */
const SYLLABLES = ['ba', 'ce', 'di', 'fo', 'gu', 'ha', 'je', 'ki', 'lo', 'mu', 'na', 'pe', 'ri', 'so', 'tu', 'va', 'we', 'xi', 'yo', 'zu'];

/** Topic word number `k` (0 to 7,999): three syllables, `bacedi`, no English word. */
export function topicWord(k: number): string {
  const n = SYLLABLES.length;
  return `${SYLLABLES[Math.floor(k / (n * n)) % n]}${SYLLABLES[Math.floor(k / n) % n]}${SYLLABLES[k % n]}`;
}

/** The 8,000 topic words, in order (a large vocabulary, as real writing has). */
export const topicWords = (): string[] => Array.from({ length: SYLLABLES.length ** 3 }, (_, k) => topicWord(k));

/**
 * Scale post `i` mentions four topic words from a window that moves along as posts are added:
 * numbers `⌊i / TOPIC_STRIDE⌋ + ((i · m) mod TOPIC_WINDOW)` for m in TOPIC_MULTIPLIERS. So a topic
 * is written about for a while and then no more, as on a real blog: a topic word matches about
 * TOPIC_STRIDE × 4 posts (~100) however many posts follow, while common words ("latency") match a
 * share of all posts.
 */
export const TOPIC_STRIDE = 25;
export const TOPIC_WINDOW = 40;
export const TOPIC_MULTIPLIERS = [7, 13, 29, 31] as const;
