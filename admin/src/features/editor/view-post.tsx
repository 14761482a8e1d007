import { useQuery } from '@tanstack/react-query';
import type { Post } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { siteKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

/** The public site (GET /site): its title, address and post URL template, as the server is configured. */
function useSite(enabled: boolean) {
  const { client } = useSession();
  return useQuery({
    queryKey: siteKeys.all,
    queryFn: async ({ signal }) => {
      const { data, error, response } = await client.api.GET('/site', { signal });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    enabled,
    // The server's configuration: it does not change while the app runs.
    staleTime: Infinity,
  });
}

/** A post's page on the public site: the server's template (RFC 6570, level 1) with the slug percent-encoded. */
export function postUrlOf(template: string, slug: string): string {
  const encoded = encodeURIComponent(slug);
  return template.replaceAll('{slug}', () => encoded);
}

/**
 * "View post": a link to the saved post's page on the public site, in a new tab, once it is
 * published (the site is asked for then). Nothing while the post is not, or the site is unknown.
 */
export function ViewPostLink({ post }: { post: Post }) {
  const published = post.status === 'published';
  const site = useSite(published);
  if (!published || site.data === undefined) return null;
  return (
    <>
      {' · '}
      <a href={postUrlOf(site.data.postUrlTemplate, post.slug)} target="_blank" rel="noreferrer noopener">
        View post<span className="visually-hidden"> (in a new tab)</span>
      </a>
    </>
  );
}
