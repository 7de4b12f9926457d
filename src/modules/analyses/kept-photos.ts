/** A fetched photo as a recognition pass takes it, and whose it is (for the organisation's catalogue). */
export type KeptPhoto = {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
  organisationId: string;
};

/**
 * Photos this process fetched, kept for the recognition passes that run in the same process, so a
 * pass takes the bytes the fetch already holds instead of reading back the copy just written to
 * PostgreSQL (decisions.md D245). The stored copy stays the durable one: a pass on another worker,
 * a pass after this process restarted, or one whose photo was let go here reads it from there.
 * Bounded by bytes (the oldest let go first), so a batch's backlog of fetched photos waiting for
 * recognition slots costs at most `maxBytes` of memory; each entry is dropped when its analysis ends.
 */
export class KeptPhotos {
  private readonly photos = new Map<string, KeptPhoto>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  keep(analysisId: string, photo: KeptPhoto): void {
    this.drop(analysisId);
    if (photo.bytes.length > this.maxBytes) return;
    this.photos.set(analysisId, photo);
    this.bytes += photo.bytes.length;
    for (const [id, oldest] of this.photos) {
      if (this.bytes <= this.maxBytes) break;
      this.photos.delete(id);
      this.bytes -= oldest.bytes.length;
    }
  }

  get(analysisId: string): KeptPhoto | undefined {
    return this.photos.get(analysisId);
  }

  drop(analysisId: string): void {
    const kept = this.photos.get(analysisId);
    if (!kept) return;
    this.photos.delete(analysisId);
    this.bytes -= kept.bytes.length;
  }

  /** Bytes held now (for the benchmark's and tests' view of the bound). */
  get size(): number {
    return this.bytes;
  }
}
