import { z } from 'zod';

const csv = (item: z.ZodType<string, string>) =>
  z
    .string()
    .max(2000)
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).max(100));

const days = z.coerce
  .number()
  .int()
  .min(1)
  .max(365)
  .default(30)
  .meta({ description: 'Look-back window in days (1 to 365).' });

export const shareOfShelfQuery = z.strictObject({
  days,
  projectId: z.string().max(100).optional(),
  brands: csv(z.string().max(200)).optional().meta({ description: 'Comma-separated brands (case-insensitive).' }),
  categories: csv(z.string().max(100)).optional().meta({ description: 'Comma-separated categories.' }),
  countries: csv(z.string().regex(/^[A-Za-z]{2}$/, 'ISO 3166-1 alpha-2 codes.'))
    .optional()
    .meta({ description: 'Comma-separated ISO 3166-1 alpha-2 codes.' }),
  channels: csv(z.string().max(100)).optional().meta({ description: 'Comma-separated channels.' }),
});
export type ShareOfShelfQuery = z.infer<typeof shareOfShelfQuery>;

export const storePerformanceQuery = z.strictObject({
  days,
  projectId: z.string().max(100).optional(),
  placeId: z.string().max(100).optional(),
});
export type StorePerformanceQuery = z.infer<typeof storePerformanceQuery>;

const period = { periodDays: z.number().int(), periodStart: z.iso.datetime(), periodEnd: z.iso.datetime() };

export const shareOfShelfSchema = z
  .object({
    brands: z.array(
      z.object({
        brand: z.string(),
        units: z.number().int(),
        sharePercent: z.number(),
        productCount: z.number().int(),
      }),
    ),
    totalUnits: z.number().int(),
    ...period,
  })
  .meta({ id: 'ShareOfShelfReport' });

export const storePerformanceSchema = z
  .object({
    stores: z.array(
      z.object({
        placeId: z.string(),
        placeName: z.string(),
        taskCount: z.number().int(),
        completedTasks: z.number().int(),
        completionRate: z.number().meta({ description: 'Completed / all tasks, percent with one decimal.' }),
        avgComplianceScore: z.number().nullable(),
      }),
    ),
    ...period,
  })
  .meta({ id: 'StorePerformanceReport' });
