import type { Context } from 'hono';
import { pathOf, type Answer, type Env } from './context.js';
import type { Route } from './contract.js';
import { HttpProblem, problemResponse } from './problem.js';
import { baseHeaders, respond } from './response-headers.js';

/**
 * The answers that are not an operation: another method on a known path (405 with Allow, or 204 to
 * OPTIONS) and an unknown path (404).
 */
export interface PathTemplates {
  /** The Allow header of the path template `path` matches; undefined when it matches none. */
  allowAt(path: string): string | undefined;
  /** The Allow header of a static template named exactly `path` (`/posts/bulk`); undefined otherwise. */
  staticAllow(path: string): string | undefined;
  /** 204 with Allow to OPTIONS, else 405 method-not-allowed with Allow. */
  otherMethod(c: Context<Env>, allow: string): Response;
  /** 404 not-found, or `otherMethod` when the path is known. */
  notFound: Answer;
}

/**
 * Only operations are routes; other methods on a known path are answered from the table of path
 * templates (a static template before a parameter one), so a lookup tries one pattern per path,
 * not one per operation.
 */
export function pathTemplates(routes: readonly Route[]): PathTemplates {
  const templates = groupByPath(routes).map(([path, group]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`),
    allow: allowHeader(group),
  }));
  const staticTemplates = new Map(templates.filter((t) => !t.path.includes(':')).map((t) => [t.path, t.allow]));
  const allowAt = (path: string) => templates.find((t) => t.pattern.test(path))?.allow;
  const otherMethod = (c: Context<Env>, allow: string): Response => {
    // OPTIONS with an Origin is a CORS preflight, answered by the CORS middleware before this.
    if (c.req.method === 'OPTIONS') return respond(null, 204, { ...baseHeaders(c.req.path), allow });
    return problemResponse(new HttpProblem(405, 'method-not-allowed', `This path allows ${allow}.`, {}, { allow }), pathOf(c.req.url));
  };
  return {
    allowAt,
    staticAllow: (path) => staticTemplates.get(path),
    otherMethod,
    notFound: (c) => {
      const allow = allowAt(c.req.path);
      if (allow !== undefined) return otherMethod(c, allow);
      const path = pathOf(c.req.url);
      return problemResponse(new HttpProblem(404, 'not-found', `No resource at ${path}.`), path);
    },
  };
}

function groupByPath(routes: readonly Route[]): [string, Route[]][] {
  const groups = new Map<string, Route[]>();
  for (const route of routes) groups.set(route.honoPath, [...(groups.get(route.honoPath) ?? []), route]);
  // Static segments before parameters, so `/posts/bulk` is matched before `/posts/:id`.
  const rank = (path: string) =>
    path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '1' : '0'))
      .join('');
  return [...groups.entries()].sort(([a], [b]) => rank(a).localeCompare(rank(b)) || a.localeCompare(b));
}

function allowHeader(routes: readonly Route[]): string {
  const methods = new Set(routes.map((r) => r.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort().join(', ');
}
