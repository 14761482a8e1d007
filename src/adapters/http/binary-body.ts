/**
 * A reply body of bytes of a known type (an image file, an HTML page): written as they are, with
 * their Content-Type and Content-Length, where the operation declares several types for one status.
 */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
  ) {}
}
