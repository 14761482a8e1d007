import { useQueryClient } from '@tanstack/react-query';
import type { components, Media, UpdateMediaRequest } from '../../../../src/client/index.js';
import { problemOf, unreachable, type ApiProblem } from '../../lib/problem';
import { mediaKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

export type MediaUse = components['schemas']['MediaInUseProblem']['posts'][number];

/** A delete's outcome: gone, still shown by posts (409), or another problem. */
export type DeleteOutcome =
  { kind: 'deleted' } | { kind: 'in-use'; posts: MediaUse[]; problem: ApiProblem } | { kind: 'problem'; problem: ApiProblem };

/** Saves a media's alt text or caption; the answer replaces it in the cache and the library is refetched. */
export function useUpdateMedia() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return async (id: string, patch: UpdateMediaRequest): Promise<Media> => {
    const result = await client.updateMedia(id, patch).catch(() => {
      throw unreachable();
    });
    if (result.error !== undefined) throw problemOf(result.error, result.response);
    queryClient.setQueryData(mediaKeys.detail(id), result.data);
    await queryClient.invalidateQueries({ queryKey: mediaKeys.lists() });
    return result.data;
  };
}

/** Deletes a media (`force`: even while posts show it); once gone it leaves the cache. */
export function useDeleteMedia() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return async (id: string, force: boolean): Promise<DeleteOutcome> => {
    let result;
    try {
      result = await client.deleteMedia(id, { force });
    } catch {
      return { kind: 'problem', problem: unreachable() };
    }
    const { error, response } = result;
    if (error === undefined || response.status === 404) {
      queryClient.removeQueries({ queryKey: mediaKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: mediaKeys.lists() });
      return { kind: 'deleted' };
    }
    const problem = problemOf(error, response);
    if (response.status === 409 && 'posts' in error) return { kind: 'in-use', posts: error.posts, problem };
    return { kind: 'problem', problem };
  };
}
