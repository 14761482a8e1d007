import { useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent } from 'react';
import type { Media } from '../../../../src/client/index.js';
import { Field } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { IMAGE_TYPES, thumbnailOf, useMedia, useMediaLibrary, useUploadImage } from '../../lib/media';
import { ApiProblem, unreachable } from '../../lib/problem';
import { mediaKeys } from '../../lib/query-keys';
import type { CoverImage } from './fields';

/** An image's name for a button that picks it: its alt text, or when it was uploaded. */
const nameOf = (media: Media) => media.alt || `image uploaded ${new Date(media.createdAt).toLocaleString()}`;

/** The library as buttons that each pick an image, newest first, with "Load more" and an upload. */
function CoverChooser({ onPick, onClose }: { onPick: (media: Media) => void; onClose: () => void }) {
  const library = useMediaLibrary();
  const upload = useUploadImage();
  const [uploading, setUploading] = useState<string | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const items = library.data?.pages.flatMap((page) => page.items) ?? [];

  async function uploaded(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    setUploading(file.name);
    try {
      onPick(await upload(file));
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : unreachable());
    } finally {
      setUploading(null);
    }
  }

  return (
    <section className="cover-chooser" aria-labelledby="cover-chooser-title">
      <h3 id="cover-chooser-title">Choose a cover image</h3>
      <p className="cover-upload">
        <label htmlFor="cover-upload">Upload a new image</label>{' '}
        <input id="cover-upload" type="file" accept={IMAGE_TYPES} onChange={(e) => void uploaded(e)} disabled={uploading !== null} />
      </p>
      <p aria-live="polite">{uploading ? `Uploading ${uploading}…` : ''}</p>
      {problem && <ProblemAlert error={problem} />}
      {library.error && <ProblemAlert error={library.error instanceof ApiProblem ? library.error : unreachable()} />}
      {library.isPending && <p aria-live="polite">Loading the library…</p>}
      {library.isSuccess && items.length === 0 && <p>The library has no images yet: upload one.</p>}
      <ul className="media-choices">
        {items.map((media) => {
          const thumb = thumbnailOf(media);
          return (
            <li key={media.id}>
              <button type="button" className="media-choice" onClick={() => onPick(media)} aria-label={`Use ${nameOf(media)}`}>
                <img src={thumb.url} width={thumb.width} height={thumb.height} alt="" loading="lazy" decoding="async" />
              </button>
            </li>
          );
        })}
      </ul>
      <div className="actions">
        {library.hasNextPage && (
          <button type="button" className="secondary" onClick={() => void library.fetchNextPage()} disabled={library.isFetchingNextPage}>
            {library.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        )}
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/**
 * The post's cover image: its thumbnail (the 320-pixel variant, or the original), the alt text
 * this post gives it, and the buttons to change or remove it; or a button to choose one from the
 * library (or upload one). A change is part of the post's save, as any field.
 */
export function CoverPicker({
  cover,
  onChange,
  error,
}: {
  cover: CoverImage | null;
  onChange: (cover: CoverImage | null) => void;
  error: string | undefined;
}) {
  const queryClient = useQueryClient();
  const media = useMedia(cover?.mediaId ?? null);
  const [choosing, setChoosing] = useState(false);
  const thumb = media.data ? thumbnailOf(media.data) : null;
  return (
    <fieldset className="cover" aria-describedby={error ? 'post-cover-error' : undefined}>
      <legend>Cover image</legend>
      {cover ? (
        <div className="cover-chosen">
          {thumb ? (
            <img className="cover-thumb" src={thumb.url} width={thumb.width} height={thumb.height} alt={cover.alt} />
          ) : (
            <p>{media.error ? 'This image is no longer in the library.' : 'Loading the image…'}</p>
          )}
          <div>
            <Field id="post-cover-alt" label="Alt text of the cover" hint="What the image shows, for readers who cannot see it.">
              {(p) => (
                <input
                  id={p.id}
                  type="text"
                  value={cover.alt}
                  onChange={(e) => onChange({ ...cover, alt: e.target.value })}
                  aria-describedby={p.describedBy}
                />
              )}
            </Field>
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setChoosing(true)} aria-expanded={choosing}>
                Change the cover
              </button>
              <button type="button" className="secondary" onClick={() => onChange(null)}>
                Remove the cover
              </button>
            </div>
          </div>
        </div>
      ) : (
        <p className="actions">
          <span>No cover image.</span>
          <button type="button" className="secondary" onClick={() => setChoosing(true)} aria-expanded={choosing}>
            Choose a cover
          </button>
        </p>
      )}
      {error && (
        <p id="post-cover-error" className="field-error">
          {error}
        </p>
      )}
      {choosing && (
        <CoverChooser
          onPick={(picked) => {
            // The thumbnail needs no request: the library answered this media already.
            queryClient.setQueryData(mediaKeys.detail(picked.id), picked);
            onChange({ mediaId: picked.id, alt: picked.alt });
            setChoosing(false);
          }}
          onClose={() => setChoosing(false)}
        />
      )}
    </fieldset>
  );
}
