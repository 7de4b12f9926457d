import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import type { Page } from '../../lib/pagination.js';
import { Alert } from './alert.entity.js';
import type { UpdateAlertInput } from './alert.schemas.js';
import { fitText } from '../../lib/text.js';
import { ALERT_TITLE_MAX, type ALERT_SEVERITIES, type ALERT_SOURCE_TYPES, type ALERT_TYPES } from './alert.entity.js';
import { metrics } from '../../lib/metrics.js';
import { afterCommit } from '../../db/after-commit.js';
import type { AlertRepository } from './alert.repository.js';

export type RaiseAlert = {
  organisationId: string;
  type: (typeof ALERT_TYPES)[number];
  severity: (typeof ALERT_SEVERITIES)[number];
  title: string;
  message: string;
  sourceType: (typeof ALERT_SOURCE_TYPES)[number];
  sourceId: string;
  placeId?: string | null;
  metadata?: Record<string, unknown>;
  /** Defaults to type + source: one alert per condition per source, however often it is raised. */
  dedupeKey?: string;
};

export type AlertFilters = {
  type?: Alert['type'];
  severity?: Alert['severity'];
  status?: Alert['status'];
  placeId?: string;
};

export class AlertService {
  private readonly repo?: AlertRepository;

  /** Without an entity manager it can only raise alerts (inside a caller's transaction). */
  constructor(private readonly em?: EntityManager) {
    if (em) this.repo = em.getRepository<Alert, AlertRepository>(Alert);
  }

  list(organisationId: string, filters: AlertFilters, page: Page) {
    const where: FilterQuery<Alert> = {};
    if (filters.type) where.type = filters.type;
    if (filters.severity) where.severity = filters.severity;
    if (filters.status) where.status = filters.status;
    if (filters.placeId) where.placeId = filters.placeId;
    return this.repo!.page(organisationId, where, page);
  }

  async get(organisationId: string, id: string): Promise<Alert> {
    const alert = await this.repo!.findInOrg(organisationId, id);
    if (!alert) throw new NotFoundError('alert', id);
    return alert;
  }

  /** Status and pin changes, recording who and when. Snoozing returns the alert's snooze deadline. */
  async update(organisationId: string, id: string, input: UpdateAlertInput, actor: string): Promise<Alert> {
    const alert = await this.get(organisationId, id);
    if (input.status !== undefined) {
      alert.status = input.status;
      alert.snoozedUntil =
        input.status === 'snoozed'
          ? input.snoozedUntil
            ? new Date(input.snoozedUntil)
            : new Date(Date.now() + input.snoozeDurationMs!)
          : null;
    }
    if (input.isPinned !== undefined) alert.isPinned = input.isPinned;
    alert.actionedBy = actor;
    alert.actionedAt = new Date();
    await this.em!.flush();
    return alert;
  }

  /** The snooze timer fired: back to unread, unless the alert was changed or re-snoozed since. */
  async endSnooze(alertId: string, until: string): Promise<boolean> {
    return this.repo!.endSnooze(alertId, new Date(until));
  }

  /**
   * Raises an alert inside the caller's transaction; returns its id, new or existing. The title is
   * derived text (a name at its own column maximum plus a prefix), so it is cut to fit its column
   * here, for every caller: a refused insert would fail the calling workflow step.
   */
  async raise(em: EntityManager, a: RaiseAlert): Promise<{ id: string; created: boolean }> {
    const rows = await em
      .getRepository<Alert, AlertRepository>(Alert)
      .insertOnce({ ...a, title: fitText(a.title, ALERT_TITLE_MAX) });
    if (rows[0]!.inserted) afterCommit(em, () => metrics.alertsRaised.inc({ type: a.type }));
    return { id: rows[0]!.id, created: rows[0]!.inserted };
  }
}
