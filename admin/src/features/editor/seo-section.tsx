import { Field } from '../../components/field';
import type { SeoFields } from './fields';

/** The API's limits (PostSeo): characters, as the server counts them (code points). */
const TITLE_MAX = 200;
const DESCRIPTION_MAX = 500;

const lengthOf = (text: string) => [...text].length;

/** "12 / 200 characters", and how many too many once over. */
function counted(text: string, max: number): string {
  const n = lengthOf(text);
  return n > max ? `${n} / ${max} characters: ${n - max} too many` : `${n} / ${max} characters`;
}

/**
 * What search engines and link previews are told of the post; each field left empty means the
 * post's own (its title, its excerpt, its URL). `errorAt(pointer, label)` is the save's field error there, as sentences naming it by `label`.
 */
export function SeoSection({
  seo,
  onChange,
  errorAt,
}: {
  seo: SeoFields;
  onChange: (seo: SeoFields) => void;
  errorAt: (pointer: string, label: string) => string | undefined;
}) {
  const set = (name: keyof SeoFields, value: string) => onChange({ ...seo, [name]: value });
  return (
    <fieldset className="seo">
      <legend>Search and sharing (SEO)</legend>
      {/* "Headline", not "title": two fields named "…title" in one form read alike to a screen reader's list of fields. */}
      <Field
        id="post-seo-title"
        label="SEO headline"
        hint={`${counted(seo.title, TITLE_MAX)}. Empty: the post’s title.`}
        error={errorAt('/body/seo/title', 'SEO headline')}
      >
        {(p) => (
          <input
            id={p.id}
            type="text"
            value={seo.title}
            onChange={(e) => set('title', e.target.value)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || lengthOf(seo.title) > TITLE_MAX || undefined}
          />
        )}
      </Field>
      <Field
        id="post-seo-description"
        label="SEO description"
        hint={`${counted(seo.description, DESCRIPTION_MAX)}. Empty: the post’s excerpt.`}
        error={errorAt('/body/seo/description', 'SEO description')}
      >
        {(p) => (
          <textarea
            id={p.id}
            rows={3}
            value={seo.description}
            onChange={(e) => set('description', e.target.value)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || lengthOf(seo.description) > DESCRIPTION_MAX || undefined}
          />
        )}
      </Field>
      <Field
        id="post-seo-canonical"
        label="Canonical URL"
        hint="The page search engines should index instead, when the post was first published elsewhere (https://…). Empty: the post’s own URL."
        error={errorAt('/body/seo/canonicalUrl', 'Canonical URL')}
      >
        {(p) => (
          <input
            id={p.id}
            type="url"
            inputMode="url"
            value={seo.canonicalUrl}
            onChange={(e) => set('canonicalUrl', e.target.value)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
            spellCheck={false}
          />
        )}
      </Field>
    </fieldset>
  );
}
