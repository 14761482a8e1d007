import { useEffect, useEffectEvent, useRef } from 'react';
import type { Post } from '../../../../src/client/index.js';
import type { Fields } from './fields';

/**
 * How long after the last change a draft saves itself: a pause in typing, not every keystroke (the
 * server keeps one revision per burst of autosaves anyway).
 */
export const AUTOSAVE_DELAY_MS = 2_500;

/**
 * How close to its publish time a scheduled draft stops saving itself: the scheduler publishes
 * what is saved, so an edit begun this near going out waits for Save, as a published post's does.
 */
const AUTOSAVE_SCHEDULED_MARGIN_MS = 30 * 60_000;

/**
 * Whether the editor saves `draft` by itself: a draft on the server (scheduled or not) whose edit
 * keeps it a draft with its schedule, as the server autosaves, unless it is scheduled to go out
 * within AUTOSAVE_SCHEDULED_MARGIN_MS of `now`. A published post's changes, and a publish or a
 * schedule, wait for Save, so half an edit never goes live.
 */
export function autosaves(base: Post | null, draft: Fields, now = Date.now()): boolean {
  if (base === null || base.status !== 'draft' || draft.status !== 'draft' || draft.publishAt !== base.publishAt) return false;
  return base.publishAt === null || Date.parse(base.publishAt) - now > AUTOSAVE_SCHEDULED_MARGIN_MS;
}

/**
 * Calls `save` once `draft` has not changed for `AUTOSAVE_DELAY_MS`, while `enabled` (unsaved
 * changes, no save in flight, no conflict to settle). A draft that a save was already tried with
 * is not tried again by itself: a refused autosave waits for the next change or for Save.
 */
export function useAutosave(draft: Fields, enabled: boolean, save: () => void): void {
  const tried = useRef<Fields | null>(null);
  const fire = useEffectEvent(() => {
    tried.current = draft;
    save();
  });
  useEffect(() => {
    if (!enabled || tried.current === draft) return undefined;
    const timer = setTimeout(fire, AUTOSAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, enabled]);
}
