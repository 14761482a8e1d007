/**
 * A reply body of bytes of a known type (an image file): written as they are, with their
 * Content-Type and Content-Length, where the operation declares several binary types for one status.
 */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
  ) {}
}
