/**
 * A JSON reply body already serialised, for a handler that needed its text anyway (a content
 * answer hashes its bytes for the ETag): the dispatch writes `text` as it is instead of
 * serialising the body a second time. `T` is the schema type the text is a serialisation of, so
 * the handler's reply is still checked against the contract by `tsc`.
 */
export class JsonText<T> {
  /** Never set: carries `T` for the type checker only. */
  declare readonly of?: T;

  private constructor(readonly text: string) {}

  /** `body` serialised once (`JSON.stringify`). */
  static of<T>(body: T): JsonText<T> {
    return new JsonText<T>(JSON.stringify(body));
  }
}
