// Shared by the image fetcher, the recognizer's activity and the analysis workflow (which may import
// nothing of theirs): a module of its own, so the contract depends on no service.

/**
 * Why an image is unusable (an analysis' `error.code`, refunded): the fetcher throws them, the
 * recognizer the last one, and the workflow fails the analysis with the code it was given.
 */
export const IMAGE_ERROR_CODES = [
  'IMAGE_UNREACHABLE',
  'IMAGE_HTTP_ERROR',
  'IMAGE_NOT_AN_IMAGE',
  'IMAGE_TOO_LARGE',
  'IMAGE_ADDRESS_BLOCKED',
  'IMAGE_UNSUPPORTED',
  'IMAGE_TOO_COMPLEX',
] as const;
export type ImageErrorCode = (typeof IMAGE_ERROR_CODES)[number];

/**
 * The public message of IMAGE_NOT_AN_IMAGE for a photo that does not decode (a truncated file behind a
 * valid header, say): the fetch's, or the local recognizer's when the fetch left the full decode to it
 * (decisions.md D282), so a client reads the same words whichever refused it.
 */
export const UNDECODABLE_IMAGE_MESSAGE = 'The body could not be decoded as an image.';
