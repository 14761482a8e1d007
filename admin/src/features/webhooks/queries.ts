import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CreateWebhookRequest,
  UpdateWebhookRequest,
  WebhookDeliveryStatus,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '../../../../src/client/index.js';
import { problemOf, unreachable } from '../../lib/problem';
import { webhookKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

/** Deliveries per page of a subscription's log. */
const DELIVERIES_PAGE = 20;

/** What the log's filter offers: every status (''), or one. */
export type DeliveryFilter = WebhookDeliveryStatus | '';

/** Every subscription, the oldest first. */
export function useWebhooks() {
  const { client } = useSession();
  return useQuery({
    queryKey: webhookKeys.list(),
    queryFn: async ({ signal }) => {
      const { data, error, response } = await client.listWebhooks(signal);
      if (error !== undefined) throw problemOf(error, response);
      return data.items;
    },
  });
}

/** A subscription's deliveries, the newest first, a page at a time, with the status filter. */
export function useDeliveries(id: string, status: DeliveryFilter) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(id, status),
    queryFn: async ({ pageParam, signal }) => {
      const query = { limit: DELIVERIES_PAGE, ...(status ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) };
      const { data, error, response } = await client.listWebhookDeliveries(id, query, signal);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

const hasSecret = (answer: WebhookSubscription | WebhookSubscriptionWithSecret): answer is WebhookSubscriptionWithSecret =>
  'secret' in answer && typeof answer.secret === 'string';

/**
 * The changes of subscriptions, each throwing the ApiProblem of a refusal. An answer that carries
 * a secret goes back to the caller only, never into the query cache: the list is refetched.
 */
export function useWebhookActions() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
  const call = async <T>(request: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
    const result = await request().catch(() => {
      throw unreachable();
    });
    if (result.error !== undefined) throw problemOf(result.error, result.response);
    return result.data as T;
  };
  return {
    async create(body: CreateWebhookRequest): Promise<WebhookSubscriptionWithSecret> {
      const created = await call(() => client.createWebhook(body));
      await refresh();
      return created;
    },
    /** Changes a subscription; the new secret when `patch` rotates it, else null. */
    async update(id: string, patch: UpdateWebhookRequest): Promise<string | null> {
      const updated = await call(() => client.updateWebhook(id, patch));
      await refresh();
      return hasSecret(updated) ? updated.secret : null;
    },
    async remove(id: string): Promise<void> {
      await call(() => client.deleteWebhook(id));
      queryClient.removeQueries({ queryKey: webhookKeys.deliveriesOf(id) });
      await refresh();
    },
    async redeliver(id: string, deliveryId: string): Promise<void> {
      await call(() => client.redeliverWebhookDelivery(id, deliveryId));
      await queryClient.invalidateQueries({ queryKey: webhookKeys.deliveriesOf(id) });
    },
  };
}
