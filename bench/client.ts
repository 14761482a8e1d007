/** The few API calls the benchmark makes outside the load generator. */
import type { Credentials } from './database.js';
import type { PostInput } from './text.js';

export async function login(baseUrl: string, { email, password }: Credentials): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as { accessToken?: string };
  if (res.status !== 200 || !body.accessToken) throw new Error(`login answered ${res.status}`);
  return body.accessToken;
}

export interface Summary {
  id: string;
  updatedAt: string;
}
export interface Page {
  items: Summary[];
  nextCursor: string | null;
  total: number;
}

export async function createPost(baseUrl: string, token: string, input: PostInput): Promise<string> {
  const res = await fetch(`${baseUrl}/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || !body.id) throw new Error(`POST /posts answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.id;
}

export async function listPosts(baseUrl: string, token: string, query: string): Promise<Page> {
  const res = await fetch(`${baseUrl}/posts?${query}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Page;
  if (res.status !== 200) throw new Error(`GET /posts?${query} answered ${res.status}`);
  return body;
}
