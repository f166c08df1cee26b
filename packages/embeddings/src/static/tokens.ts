/**
 * Tokens the table never holds and the embedder weighs little: all-digit
 * tokens and single characters (dates, versions, the `s` of `user's`).
 */
export function isMinorToken(token: string): boolean {
  return token.length <= 1 || /^\p{N}+$/u.test(token);
}
