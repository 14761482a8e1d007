import { describe, expect, it } from 'vitest';
import { POST_STATUSES } from '../../../domain/post.js';
import { ACTIVITY_TYPES } from '../../../domain/post.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks.js';
import { ACTIVITY_TYPE_SQL_VALUES, DELIVERY_STATUS_SQL_VALUES, STATUS_SQL_VALUES, WEBHOOK_EVENT_SQL_VALUES } from './schema.js';

describe('schema', () => {
  it('allows exactly the domain post statuses (posts_status_check, revisions_status_check)', () => {
    expect([...STATUS_SQL_VALUES]).toEqual([...POST_STATUSES]);
  });

  it('allows exactly the domain activity types (activity_events_type_check)', () => {
    expect([...ACTIVITY_TYPE_SQL_VALUES]).toEqual([...ACTIVITY_TYPES]);
  });

  it('allows exactly the domain webhook event types (webhook_subscriptions_events_check)', () => {
    expect([...WEBHOOK_EVENT_SQL_VALUES]).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('allows exactly the domain delivery statuses (webhook_deliveries_status_check)', () => {
    expect([...DELIVERY_STATUS_SQL_VALUES]).toEqual([...DELIVERY_STATUSES]);
  });
});
