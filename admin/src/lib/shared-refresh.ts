import type { SharedRefresh } from '../../../src/client/index.js';

/**
 * The refresh token as this browser's tabs share it, for src/client's SharedRefresh: refreshes run
 * one at a time under a Web Lock, and the token each spends is read inside the lock from
 * IndexedDB, where the tab before it wrote its new token before letting the lock go.
 *
 * Why not localStorage alone: Chromium keeps a copy of an origin's localStorage in each renderer
 * process and tells the others of a write later, so a tab that takes the lock just after another
 * tab refreshed may still read the token that tab spent (seen in test/admin/session.browser.test.ts:
 * the second spending was refused as a reuse and the session ended). IndexedDB's transactions are
 * ordered by the browser: a read after a committed write sees it. localStorage still holds the
 * token for what must be synchronous (whether a new tab starts signed in) and for the storage event
 * that tells the other tabs of a sign-in or sign-out.
 */
interface BrowserSharedRefresh extends SharedRefresh {
  /** Records the token (or the end of the session) for the next holder of the lock. */
  keep(token: string | null): void;
}

const LOCK = 'margincms:refresh';
const DATABASE = 'margincms';
const STORE = 'session';
const KEY = 'refreshToken';

let database: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
  database ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB would not open'));
  });
  return database;
}

/** The token as IndexedDB holds it: null once signed out, undefined if never written (or no IndexedDB). */
async function load(): Promise<string | null | undefined> {
  if (typeof indexedDB === 'undefined') return undefined;
  try {
    const db = await open();
    return await new Promise((resolve, reject) => {
      const request = db.transaction(STORE, 'readonly').objectStore(STORE).get(KEY);
      request.onsuccess = () => resolve(request.result as string | null | undefined);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB read failed'));
    });
  } catch {
    return undefined;
  }
}

/** Writes the token; settles once the write is committed (or failed). */
async function save(token: string | null): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  try {
    const db = await open();
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction(STORE, 'readwrite');
      transaction.objectStore(STORE).put(token, KEY);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB write failed'));
    });
  } catch {
    // Without IndexedDB the lock's holders read localStorage.
  }
}

/** `fallback` is the synchronous copy (localStorage), read when IndexedDB has no say. */
export function browserSharedRefresh(fallback: () => string | null): BrowserSharedRefresh {
  /** The token as IndexedDB had it when this tab took the lock (undefined outside the lock). */
  let held: string | null | undefined;
  /** This tab's last write inside the lock, which the lock waits for before it is let go. */
  let written: Promise<void> = Promise.resolve();
  const locks = () => (typeof navigator === 'undefined' ? undefined : navigator.locks);
  return {
    read: () => (held === undefined ? fallback() : held),
    keep(token) {
      if (held !== undefined) {
        held = token;
        written = save(token);
        return;
      }
      // A sign-in or sign-out: written under the lock too, so a refresh in another tab reads it.
      const lock = locks();
      (lock ? lock.request(LOCK, () => save(token)) : save(token)).catch(() => undefined);
    },
    async exclusive<T>(task: () => Promise<T>): Promise<T> {
      const lock = locks();
      if (!lock) return task();
      return await lock.request(LOCK, async () => {
        held = await load();
        try {
          return await task();
        } finally {
          held = undefined;
          await written;
        }
      });
    },
  };
}
