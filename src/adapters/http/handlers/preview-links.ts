import * as links from '../../../app/preview-links.js';
import { API_ROOT } from '../contract.js';
import type { HandlerRegistry } from '../registry.js';
import { requestInstant } from '../timestamps.js';
import type { components } from '../../../../generated/api.js';

type Schemas = components['schemas'];

type PreviewLinkHandlers = Pick<HandlerRegistry, 'createPreviewLink' | 'listPreviewLinks' | 'revokePreviewLink'>;

function toApiPreviewLink({ link, status }: links.ListedPreviewLink): Schemas['PreviewLink'] {
  return {
    id: link.id,
    createdAt: link.createdAt.toISOString(),
    expiresAt: link.expiresAt.toISOString(),
    revokedAt: link.revokedAt === null ? null : link.revokedAt.toISOString(),
    status,
  };
}

/**
 * A post's preview links (tag `posts`). `previewUrl` is where getContentPreview answers for a
 * request: the Content API's address followed by `/preview` (the token follows). A new link's
 * `url` is `urlTemplate` with the token for `{token}` (PREVIEW_URL_TEMPLATE: the site's frontend),
 * or that same API URL without one.
 */
export function previewLinkHandlers(
  deps: links.PreviewLinkDeps,
  previewUrl: (request: { origin: string }) => string,
  urlTemplate: string | null = null,
): PreviewLinkHandlers {
  return {
    async createPreviewLink(request) {
      const { params, body } = request;
      const expiresAt = body?.expiresAt === undefined ? undefined : requestInstant('/expiresAt', body.expiresAt);
      const { link, token } = await links.createPreviewLink(deps, params.id, expiresAt);
      const apiUrl = `${previewUrl(request)}/${token}`;
      return {
        status: 201,
        body: {
          id: link.id,
          // A token is base64url: nothing in it needs encoding, wherever the template puts it.
          url: urlTemplate === null ? apiUrl : urlTemplate.replace('{token}', () => token),
          apiUrl,
          token,
          expiresAt: link.expiresAt.toISOString(),
          createdAt: link.createdAt.toISOString(),
        },
        headers: { Location: `${API_ROOT}/posts/${params.id}/preview-links/${link.id}` },
      };
    },

    async listPreviewLinks({ params, query }) {
      const page = await links.listPreviewLinks(deps, params.id, { limit: query.limit, cursor: query.cursor ?? null });
      return { status: 200, body: { items: page.items.map(toApiPreviewLink), nextCursor: page.nextCursor } };
    },

    async revokePreviewLink({ params }) {
      await links.revokePreviewLink(deps, params.id, params.linkId);
      return { status: 204 };
    },
  };
}
