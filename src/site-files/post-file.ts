import { stringify as toYaml } from 'yaml';
import { isValidSlug, type Post } from '../../domain/index.js';

/** The post as a markdown file: YAML front matter written by a YAML library, then the body unchanged. */
export function markdownFileOf(post: Post): string {
  const frontMatter = toYaml(
    {
      title: post.title,
      description: post.excerpt,
      date: (post.publishedAt ?? post.createdAt).toISOString(),
      tags: post.tags,
      slug: post.slug,
    },
    { lineWidth: 0 },
  );
  return `---\n${frontMatter}---\n${post.body}`;
}

/**
 * The file name a download of the post is offered under: `<slug>.md`. A slug is valid by every
 * write's rules; should a stored one ever not be, the post's id (a ULID) names the file instead,
 * so nothing a store holds can break the Content-Disposition header.
 */
export function markdownFileName(post: Post): string {
  return `${isValidSlug(post.slug) ? post.slug : post.id}.md`;
}
