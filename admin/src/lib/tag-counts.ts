import { useQuery } from '@tanstack/react-query';
import type { components } from '../../../src/client/index.js';
import { problemOf } from './problem';
import { tagKeys } from './query-keys';
import { useSession } from './session';

export type TagCount = components['schemas']['TagCount'];

/** Every tag in use with how many posts carry it, most used first (GET /tags); not asked while `enabled` is false. */
export function useTagCounts({ enabled = true }: { enabled?: boolean } = {}) {
  const { client } = useSession();
  return useQuery({
    queryKey: tagKeys.counts(),
    enabled,
    queryFn: async ({ signal }): Promise<TagCount[]> => {
      const { data, error, response } = await client.api.GET('/tags', { signal });
      if (error !== undefined) throw problemOf(error, response);
      return data.items;
    },
    staleTime: 60_000,
  });
}
