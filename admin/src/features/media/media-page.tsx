import { useState, type ChangeEvent, type DragEvent } from 'react';
import type { Media } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { IMAGE_TYPES, useMediaLibrary, useUploadImage } from '../../lib/media';
import { useDocumentTitle } from '../../lib/page';
import { ApiProblem, unreachable } from '../../lib/problem';
import { MediaCard } from './media-card';
import './media.css';

/**
 * Uploads files one after the other, saying which one is under way; each refusal is kept, in
 * words, for the author to read (the others still go).
 */
function useUploads() {
  const upload = useUploadImage();
  const [current, setCurrent] = useState<string | null>(null);
  const [done, setDone] = useState('');
  const [problems, setProblems] = useState<ApiProblem[]>([]);
  async function uploadAll(files: File[]) {
    setProblems([]);
    setDone('');
    const stored: string[] = [];
    for (const file of files) {
      setCurrent(file.name);
      try {
        await upload(file);
        stored.push(file.name);
      } catch (error) {
        const problem = error instanceof ApiProblem ? error : unreachable();
        setProblems((list) => [...list, problem]);
      }
    }
    setCurrent(null);
    if (stored.length > 0) setDone(`Uploaded ${stored.join(', ')}.`);
  }
  return { uploadAll, current, done, problems };
}

/** The drop zone and the upload button: images dropped or chosen go to the library. */
function UploadZone() {
  const { uploadAll, current, done, problems } = useUploads();
  const [over, setOver] = useState(false);

  const chosen = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    event.target.value = '';
    if (files.length > 0) void uploadAll(files);
  };
  const dropped = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setOver(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) void uploadAll(files);
  };

  return (
    <section
      className={over ? 'drop-zone drop-over' : 'drop-zone'}
      aria-labelledby="upload-title"
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={dropped}
    >
      <h2 id="upload-title">Upload images</h2>
      <p>Drop JPEG, PNG, WebP, AVIF or GIF images here, or choose them. Each is stored once, with its location data removed.</p>
      <p>
        <label htmlFor="media-upload">Choose images</label>{' '}
        <input id="media-upload" type="file" accept={IMAGE_TYPES} multiple onChange={chosen} disabled={current !== null} />
      </p>
      <p aria-live="polite">{current ? `Uploading ${current}…` : done}</p>
      {problems.map((problem, i) => (
        <ProblemAlert key={i} error={problem} />
      ))}
    </section>
  );
}

/** The media library (`/media`): upload, then each image's texts, URL and delete, newest first. */
export default function MediaPage() {
  useDocumentTitle('Media');
  const library = useMediaLibrary();
  const [gone, setGone] = useState('');
  const items = library.data?.pages.flatMap((page) => page.items) ?? [];
  const deleted = (media: Media) => setGone(`Deleted ${media.alt || 'the image'}.`);

  return (
    <>
      <h1>Media</h1>
      <UploadZone />
      <section aria-labelledby="library-title">
        <h2 id="library-title">Library</h2>
        <p aria-live="polite">{gone}</p>
        {library.error && <ProblemAlert error={library.error instanceof ApiProblem ? library.error : unreachable()} />}
        {library.isPending && <p aria-live="polite">Loading the library…</p>}
        {library.isSuccess && items.length === 0 && <p>No images yet.</p>}
        <ul className="media-grid">
          {items.map((media) => (
            <MediaCard key={media.id} media={media} onDeleted={deleted} />
          ))}
        </ul>
        {library.hasNextPage && (
          <p>
            <button type="button" className="secondary" onClick={() => void library.fetchNextPage()} disabled={library.isFetchingNextPage}>
              {library.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          </p>
        )}
      </section>
    </>
  );
}
