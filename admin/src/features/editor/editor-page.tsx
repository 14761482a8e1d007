import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useBlocker, useNavigate, useParams } from 'react-router';
import type { components, NewPost, Post } from '../../../../src/client/index.js';
// The server's rule itself (a pure module of the domain): the count shown is the count saved.
import { countWords } from '../../../../src/domain/word-count.js';
import { Field, type FieldProps } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { altFromName, imageMarkdown, useUploadImage } from '../../lib/media';
import { useDocumentTitle } from '../../lib/page';
import { FIELD_LABELS, fieldSentences } from '../../lib/post-fields';
import { ApiProblem, problemOf, unreachable } from '../../lib/problem';
import { postKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';
import { autosaves, useAutosave } from './autosave';
import { ConflictBanner } from './conflict-banner';
import { CoverPicker } from './cover-picker';
import './editor.css';
import { LeaveGuard } from './leave-guard';
import { dropLocalCopy, keepLocalCopy, readLocalCopy, type LocalCopy } from './local-copy';
import { differingFields, EMPTY_FIELDS, fieldsOf, patchOf, seoInputOf, suggestSlug, type FieldName, type Fields } from './fields';
import { MarkdownEditor } from './markdown-editor';
import { PreviewPane } from './preview-pane';
import { usePost, useTagNames } from './queries';
import { SaveProblem } from './save-problem';
import { SeoSection } from './seo-section';
import { SharePreview } from './share-preview';
import { ViewPostLink } from './view-post';
import { defaultPublishAt, localTime, PublishAtInput, publishAtLabel } from './schedule';
import { TagInput } from './tag-input';

type SlugTaken = components['schemas']['SlugTakenProblem'];
type PreconditionFailed = components['schemas']['PreconditionFailedProblem'];

/** The editor of a post (`/posts/:id`) or of a new one (`/posts/new`); the route loads it on demand. */
export default function EditorPage() {
  const { id } = useParams();
  return id === undefined || id === 'new' ? <NewPost /> : <ExistingPost id={id} />;
}

function NewPost() {
  useDocumentTitle('New post');
  return <PostForm saved={null} />;
}

function ExistingPost({ id }: { id: string }) {
  const post = usePost(id);
  useDocumentTitle(post.data ? `Edit “${post.data.title}”` : 'Edit post');
  if (post.error) {
    const error = post.error instanceof ApiProblem ? post.error : unreachable();
    return (
      <>
        <h1>Edit post</h1>
        <ProblemAlert error={error} />
        <p>
          <Link to="/posts">Back to the posts</Link>
        </p>
      </>
    );
  }
  if (!post.data) return <p aria-live="polite">Loading the post…</p>;
  return <PostForm key={post.data.id} saved={post.data} />;
}

/** A save's outcome that the form shows: a problem, a slug-taken offer, or the conflict. */
type Outcome =
  | { kind: 'problem'; problem: ApiProblem }
  | { kind: 'slug-taken'; problem: ApiProblem; suggestedSlug: string }
  | { kind: 'conflict'; current: Post; refused: boolean };

const isMac = typeof navigator !== 'undefined' && /Mac|iP(hone|ad)/.test(navigator.platform);

/** What the status control offers: the post's statuses, and a draft with a publish time. */
type StatusChoice = Fields['status'] | 'scheduled';

const statusChoiceOf = (fields: Fields): StatusChoice =>
  fields.status === 'draft' && fields.publishAt !== null ? 'scheduled' : fields.status;

/** The preview starts shown where there is room for it beside the body. */
const wideEnough = () =>
  typeof window === 'undefined' || typeof window.matchMedia !== 'function' || window.matchMedia('(min-width: 64rem)').matches;

function PostForm({ saved }: { saved: Post | null }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const tags = useTagNames();
  /** The post as the server last answered it: what the author's changes are measured from. */
  const [base, setBase] = useState<Post | null>(saved);
  const [draft, setDraft] = useState<Fields>(saved ? fieldsOf(saved) : EMPTY_FIELDS);
  const [slugEdited, setSlugEdited] = useState(saved !== null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [pending, setPending] = useState(false);
  /** A save in flight, seen at once (the state above only from the next render): never two at a time. */
  const inFlight = useRef(false);
  const [status, setStatus] = useState('');
  const [showPreview, setShowPreview] = useState(wideEnough);
  /** Failed saves so far: each problem shown anew (its Retry-After counted from its answer). */
  const [failures, setFailures] = useState(0);
  const createKey = useRef<{ body: string; key: string } | null>(null);
  const uploadImage = useUploadImage();
  /** The body's image uploads: what is under way or done, and the last refusal. */
  const [imageStatus, setImageStatus] = useState('');
  const [imageProblem, setImageProblem] = useState<ApiProblem | null>(null);
  /** Set just before the form itself navigates away (to the post it created), which the guard lets through. */
  const leaving = useRef(false);

  const baseFields = base ? fieldsOf(base) : EMPTY_FIELDS;
  const dirty = differingFields(baseFields, draft).length > 0;
  const postId = saved?.id ?? null;
  // A newer version read while the form is open (on focus): it replaces a form without changes;
  // over changes, the conflict banner says so now, before a save would be refused. A save under
  // way is left to its own answer (its 412, or the version it made).
  const [shown, setShown] = useState(saved);
  if (saved !== shown) {
    setShown(saved);
    if (saved && base && saved.version > base.version && !pending) {
      if (dirty) setOutcome({ kind: 'conflict', current: saved, refused: false });
      else {
        setBase(saved);
        setDraft(fieldsOf(saved));
      }
    }
  }
  /** Unsaved work this browser kept from an earlier visit, offered until restored or discarded. */
  const [offered, setOffered] = useState<LocalCopy | null>(() => {
    const copy = readLocalCopy(postId);
    return copy && differingFields(copy.fields, saved ? fieldsOf(saved) : EMPTY_FIELDS).length > 0 ? copy : null;
  });
  // While the form has changes, this browser keeps a copy of them (not over one still on offer).
  useEffect(() => {
    if (offered) return;
    if (dirty) keepLocalCopy(postId, draft, base?.version ?? null);
    else dropLocalCopy(postId);
  }, [offered, dirty, draft, base, postId]);

  const set = <K extends FieldName>(name: K, value: Fields[K]) => {
    setDraft((d) => ({ ...d, [name]: value, ...(name === 'title' && !slugEdited ? { slug: suggestSlug(value as string) } : {}) }));
    setStatus('');
  };

  /** Scheduled is a draft with a publish time (the last one chosen, or the next hour but one); any other status has none. */
  const chooseStatus = (choice: StatusChoice) => {
    setDraft((d) =>
      choice === 'scheduled'
        ? { ...d, status: 'draft', publishAt: d.publishAt ?? base?.publishAt ?? defaultPublishAt() }
        : { ...d, status: choice, publishAt: null },
    );
    setStatus('');
  };

  function answered(post: Post) {
    queryClient.setQueryData(postKeys.detail(post.id), post);
    void queryClient.invalidateQueries({ queryKey: postKeys.lists() });
  }

  function failed(error: unknown, response: Response) {
    const problem = problemOf(error, response);
    setFailures((n) => n + 1);
    if (response.status === 412 && error !== null && typeof error === 'object' && 'current' in error) {
      setOutcome({ kind: 'conflict', current: (error as PreconditionFailed).current, refused: true });
    } else if (response.status === 409 && typeof (error as Partial<SlugTaken>).suggestedSlug === 'string') {
      setOutcome({ kind: 'slug-taken', problem, suggestedSlug: (error as SlugTaken).suggestedSlug });
    } else {
      setOutcome({ kind: 'problem', problem });
    }
  }

  /** Saves what the author changed since `from` (the last answer, or `current` after a 412); by itself with `autosave`. */
  async function save(from: Post | null, autosave = false) {
    if (pending || inFlight.current) return;
    inFlight.current = true;
    setPending(true);
    setStatus('');
    const sent = draft;
    try {
      if (from) {
        const patch = patchOf(base ? fieldsOf(base) : EMPTY_FIELDS, sent);
        if (Object.keys(patch).length === 0) {
          // Nothing of the author's to apply: after a 412 that is taking theirs.
          if (from !== base) {
            setBase(from);
            setDraft(fieldsOf(from));
          }
          setOutcome(null);
          setStatus('Nothing to save.');
          return;
        }
        // If-Match names the version the change is measured from (the post's ETag is its version
        // quoted), not the last ETag src/client saw: a refetch on focus may have seen a newer one.
        const result = await client.updatePost(from.id, patch, { ifMatch: `"${from.version}"`, autosave });
        if (result.error !== undefined) return failed(result.error, result.response);
        setOutcome(null);
        setBase(result.data);
        setDraft((d) => (d === sent ? fieldsOf(result.data) : d));
        answered(result.data);
        setStatus(autosave ? 'Saved.' : `Saved: version ${result.data.version}.`);
      } else {
        const body: NewPost = {
          title: sent.title,
          excerpt: sent.excerpt,
          body: sent.body,
          tags: sent.tags,
          status: sent.status === 'published' ? 'published' : 'draft',
          ...(sent.slug ? { slug: sent.slug } : {}),
          ...(sent.status === 'draft' && sent.publishAt !== null ? { publishAt: sent.publishAt } : {}),
          ...(sent.coverImage ? { coverImage: sent.coverImage } : {}),
          ...(differingFields(EMPTY_FIELDS, sent).includes('seo') ? { seo: seoInputOf(sent.seo) } : {}),
        };
        // The same body retried (after a lost answer) keeps its Idempotency-Key; a changed one gets a new key.
        const json = JSON.stringify(body);
        const key = createKey.current?.body === json ? createKey.current.key : crypto.randomUUID();
        createKey.current = { body: json, key };
        const result = await client.createPost(body, { idempotencyKey: key });
        if (result.error !== undefined) return failed(result.error, result.response);
        answered(result.data);
        setBase(result.data);
        dropLocalCopy(null);
        leaving.current = true;
        void navigate(`/posts/${result.data.id}`, { replace: true });
      }
    } catch {
      setOutcome({ kind: 'problem', problem: unreachable() });
    } finally {
      inFlight.current = false;
      setPending(false);
    }
  }

  // A draft saves itself a few seconds after typing stops (not while a 412 waits to be settled, nor
  // while a local copy is on offer); a published post waits for Save.
  useAutosave(draft, dirty && !pending && outcome?.kind !== 'conflict' && !offered && autosaves(base, draft), () => void save(base, true));

  // Ctrl/Cmd+S anywhere on the page saves, as in every editor (and not the browser's "Save page").
  const saveByKey = useEffectEvent(() => void save(base));
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        saveByKey();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Leaving the page with unsaved changes asks first: another page of the app (the router's
  // blocker), or a reload, a closed tab or another site (the browser's beforeunload prompt).
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && !leaving.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!dirty) return undefined;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  /** An image dropped or pasted into the body: uploaded, then shown with its alt text (or its file name). */
  async function bodyImage(file: File): Promise<string | null> {
    setImageProblem(null);
    setImageStatus(`Uploading ${file.name}…`);
    try {
      const media = await uploadImage(file);
      setImageStatus(`Inserted ${file.name}.`);
      return imageMarkdown(media, media.alt || altFromName(file.name));
    } catch (error) {
      setImageStatus('');
      setImageProblem(error instanceof ApiProblem ? error : unreachable());
      return null;
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void save(base);
  }

  const problem = outcome && outcome.kind !== 'conflict' ? outcome.problem : null;
  // Each field's errors as sentences that name it as the form does ("Title must not be empty.").
  const fieldError = (name: FieldName): string | undefined =>
    fieldSentences(`/body/${name}`, FIELD_LABELS[name], problem?.problem.errors ?? []);
  const shortcut = isMac ? '⌘S' : 'Ctrl+S';

  const field = (name: FieldName, label: string, control: (props: FieldProps) => ReactNode, hint?: ReactNode) => {
    const error = fieldError(name) ?? (name === 'slug' && outcome?.kind === 'slug-taken' ? outcome.problem.problem.detail : undefined);
    return (
      <Field id={`post-${name}`} label={label} hint={hint} error={error}>
        {control}
      </Field>
    );
  };

  const words = countWords(draft.body);
  return (
    <>
      <h1>{saved ? 'Edit post' : 'New post'}</h1>
      <p>
        <Link to="/posts">Back to the posts</Link>
        {saved && (
          <>
            {' · '}
            <Link to={`/posts/${saved.id}/history`}>History</Link>
          </>
        )}
        {base && <ViewPostLink post={base} />}
      </p>
      {offered && (
        <section className="notice" aria-labelledby="local-copy-title">
          <h2 id="local-copy-title">Unsaved work from {new Date(offered.keptAt).toLocaleString()}</h2>
          <p>
            This browser kept changes to this post that were never saved
            {offered.baseVersion !== null && base && offered.baseVersion !== base.version
              ? ` (made on version ${offered.baseVersion}; the post is now at version ${base.version}, so check them before saving)`
              : ''}
            .
          </p>
          <div className="actions">
            <button
              type="button"
              onClick={() => {
                setDraft(offered.fields);
                setSlugEdited(true);
                setOffered(null);
                setStatus('Your unsaved work is back in the form.');
              }}
            >
              Restore it
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                dropLocalCopy(postId);
                setOffered(null);
              }}
            >
              Discard it
            </button>
          </div>
        </section>
      )}
      {outcome?.kind === 'conflict' && (
        <ConflictBanner
          mine={draft}
          theirs={fieldsOf(outcome.current)}
          theirsVersion={outcome.current.version}
          refused={outcome.refused}
          applying={pending}
          onKeepTheirs={() => {
            setBase(outcome.current);
            setDraft(fieldsOf(outcome.current));
            answered(outcome.current);
            setOutcome(null);
            setStatus(`Loaded their version ${outcome.current.version}.`);
          }}
          onApplyMine={() => void save(outcome.current)}
        />
      )}
      {blocker.state === 'blocked' && (
        <LeaveGuard
          onStay={() => blocker.reset()}
          onLeave={() => {
            dropLocalCopy(postId);
            blocker.proceed();
          }}
        />
      )}
      {problem && outcome?.kind !== 'slug-taken' && (
        <SaveProblem key={failures} error={problem} retrying={pending} onRetry={() => void save(base)} />
      )}
      <form className="editor" onSubmit={submit} noValidate aria-label={saved ? 'Edit post' : 'New post'}>
        {field('title', 'Title', (p) => (
          <input
            id={p.id}
            type="text"
            value={draft.title}
            onChange={(e) => set('title', e.target.value)}
            required
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
          />
        ))}
        {field(
          'slug',
          'Slug',
          (p) => (
            <input
              id={p.id}
              type="text"
              value={draft.slug}
              onChange={(e) => {
                setSlugEdited(true);
                set('slug', e.target.value);
              }}
              aria-describedby={p.describedBy}
              aria-invalid={p.invalid || undefined}
              spellCheck={false}
            />
          ),
          saved ? undefined : 'Suggested from the title until you change it.',
        )}
        {outcome?.kind === 'slug-taken' && (
          <div role="alert" className="alert">
            <p className="alert-title">{outcome.problem.problem.title}</p>
            <p>
              “{outcome.suggestedSlug}” is free.{' '}
              <button
                type="button"
                onClick={() => {
                  setSlugEdited(true);
                  set('slug', outcome.suggestedSlug);
                  setOutcome(null);
                }}
              >
                Use “{outcome.suggestedSlug}”
              </button>
            </p>
          </div>
        )}
        {field('excerpt', 'Excerpt', (p) => (
          <textarea
            id={p.id}
            rows={2}
            value={draft.excerpt}
            onChange={(e) => set('excerpt', e.target.value)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
          />
        ))}
        {field(
          'tags',
          'Tags',
          (p) => (
            <TagInput
              id={p.id}
              tags={draft.tags}
              suggestions={tags.data ?? []}
              onChange={(next) => set('tags', next)}
              describedBy={p.describedBy}
              invalid={p.invalid}
            />
          ),
          'Enter or a comma adds a tag.',
        )}
        {field('status', 'Status', (p) => (
          <select
            id={p.id}
            value={statusChoiceOf(draft)}
            onChange={(e) => chooseStatus(e.target.value as StatusChoice)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
          >
            <option value="draft">Draft</option>
            <option value="scheduled">Scheduled</option>
            <option value="published">Published</option>
            {saved && <option value="archived">Archived</option>}
          </select>
        ))}
        {draft.publishAt !== null &&
          field(
            'publishAt',
            publishAtLabel(draft.publishAt),
            (p) => <PublishAtInput field={p} publishAt={draft.publishAt!} onChange={(iso) => set('publishAt', iso)} />,
            base?.publishAt ? `Saved: publishes ${localTime(base.publishAt)}.` : 'Publishes itself at this time once saved.',
          )}
        <p className="preview-toggle">
          <button
            type="button"
            className="secondary"
            aria-expanded={showPreview}
            aria-controls={showPreview ? 'post-preview' : undefined}
            onClick={() => setShowPreview((shown) => !shown)}
          >
            {showPreview ? 'Hide preview' : 'Show preview'}
          </button>
        </p>
        <div className={showPreview ? 'body-and-preview' : undefined}>
          {field(
            'body',
            'Body (markdown)',
            (p) => (
              <MarkdownEditor
                id={p.id}
                value={draft.body}
                onChange={(body) => set('body', body)}
                describedBy={p.describedBy}
                invalid={p.invalid}
                onImage={bodyImage}
              />
            ),
            `${words} ${words === 1 ? 'word' : 'words'}`,
          )}
          {showPreview && <PreviewPane id="post-preview" body={draft.body} />}
        </div>
        <p aria-live="polite" className="hint">
          {imageStatus || 'Drop or paste an image into the body to upload it and show it there.'}
        </p>
        {imageProblem && <ProblemAlert error={imageProblem} />}
        <CoverPicker cover={draft.coverImage} onChange={(cover) => set('coverImage', cover)} error={fieldError('coverImage')} />
        <SeoSection
          seo={draft.seo}
          onChange={(seo) => set('seo', seo)}
          errorAt={(pointer, label) => fieldSentences(pointer, label, problem?.problem.errors ?? [])}
        />
        <div className="actions">
          {/* aria-disabled, not disabled: a button disabled under the focus drops it to the page (save() ignores a second press). */}
          <button type="submit" aria-disabled={pending || undefined} aria-keyshortcuts={isMac ? 'Meta+S' : 'Control+S'}>
            {pending ? 'Saving…' : 'Save'}
          </button>
          <span className="hint">or {shortcut}</span>
          <span aria-live="polite">
            {pending
              ? 'Saving…'
              : outcome?.kind === 'conflict'
                ? 'Conflict: see the notice above.'
                : status || (dirty ? 'Unsaved changes.' : '')}
          </span>
        </div>
      </form>
      {saved && <SharePreview postId={saved.id} />}
    </>
  );
}
