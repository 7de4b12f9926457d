import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { ALERT_SEVERITIES, ALERT_SOURCE_TYPES, ALERT_STATUSES, ALERT_TYPES, type Alert } from './alert.entity.js';

export const listAlertsQuery = z.strictObject({
  type: z.enum(ALERT_TYPES).optional(),
  severity: z.enum(ALERT_SEVERITIES).optional(),
  status: z.enum(ALERT_STATUSES).optional(),
  placeId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});

export const updateAlertBody = z
  .strictObject({
    status: z.enum(['unread', 'read', 'acknowledged', 'dismissed', 'snoozed']).optional(),
    snoozedUntil: z.iso.datetime().optional().meta({ description: 'With status snoozed: when it returns to unread.' }),
    snoozeDurationMs: z
      .number()
      .int()
      .min(1000)
      .max(365 * 24 * 3600 * 1000)
      .optional()
      .meta({ description: 'With status snoozed: how long.' }),
    isPinned: z.boolean().optional(),
  })
  .superRefine((b, ctx) => {
    if (Object.keys(b).length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'Give status or isPinned.' });
    const snoozeGiven = b.snoozedUntil !== undefined || b.snoozeDurationMs !== undefined;
    if (b.status === 'snoozed' && !snoozeGiven)
      ctx.addIssue({
        code: 'custom',
        path: ['snoozedUntil'],
        message: 'Snoozing needs snoozedUntil or snoozeDurationMs.',
      });
    if (b.status !== 'snoozed' && snoozeGiven)
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: "snoozedUntil and snoozeDurationMs go with status 'snoozed'.",
      });
    if (b.snoozedUntil !== undefined && b.snoozeDurationMs !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['snoozeDurationMs'],
        message: 'Give snoozedUntil or snoozeDurationMs, not both.',
      });
    if (b.snoozedUntil !== undefined && Date.parse(b.snoozedUntil) <= Date.now())
      ctx.addIssue({ code: 'custom', path: ['snoozedUntil'], message: 'Must be in the future.' });
  })
  .meta({ id: 'UpdateAlertRequest' });
export type UpdateAlertInput = z.infer<typeof updateAlertBody>;

export const alertSchema = z
  .object({
    id: z.string().meta({ example: 'alr_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    type: z.enum(ALERT_TYPES),
    severity: z.enum(ALERT_SEVERITIES),
    title: z.string(),
    message: z.string(),
    status: z.enum(ALERT_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    sourceType: z.enum(ALERT_SOURCE_TYPES),
    sourceId: z.string(),
    placeId: z.string().nullable(),
    snoozedUntil: z.iso.datetime().nullable(),
    actionedBy: z
      .string()
      .nullable()
      .meta({ description: 'Who last changed the alert: the API key (key_), or the member (usr_) in the console.' }),
    actionedAt: z.iso.datetime().nullable(),
    isPinned: z.boolean(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Alert' });

export function serializeAlert(a: Alert): z.infer<typeof alertSchema> {
  return {
    id: a.id,
    type: a.type,
    severity: a.severity,
    title: a.title,
    message: a.message,
    status: a.status,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    sourceType: a.sourceType,
    sourceId: a.sourceId,
    placeId: a.placeId ?? null,
    snoozedUntil: a.snoozedUntil ? a.snoozedUntil.toISOString() : null,
    actionedBy: a.actionedBy ?? null,
    actionedAt: a.actionedAt ? a.actionedAt.toISOString() : null,
    isPinned: a.isPinned,
    metadata: a.metadata ?? {},
  };
}
