/**
 * Plan period arithmetic (pure). A period ends on the organisation's day of month (the UTC day it
 * was created), at the same UTC time of day; in a month without that day it ends on the month's last
 * day, and the next month goes back to the anchor day (Jan 31 → Feb 28 → Mar 31), so periods never
 * drift earlier. PLAN_PERIOD_MS replaces the month with a fixed length (tests).
 */

/** `from` moved `months` calendar months on, on `anchorDay` clamped to that month's last day. */
export function addMonthsClamped(from: Date, months: number, anchorDay: number): Date {
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + months;
  // Day 0 of the month after is the last day of this one (Date.UTC carries months into years).
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchorDay, lastDay),
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}

/**
 * The end of the period that starts at `periodStart`: the first anchor day (clamped) after it, at its
 * time of day. A period that starts on its anchor day ends a month later; one that starts off it
 * (organisations created on the 29th to 31st before periods were renewed got a first end that ran
 * into the next month: Jan 31 → Mar 3) ends on the next anchor day, which realigns it (Mar 31).
 */
export function periodEndAfter(periodStart: Date, anchorDay: number, periodMs?: number): Date {
  if (periodMs) return new Date(periodStart.getTime() + periodMs);
  const thisMonth = addMonthsClamped(periodStart, 0, anchorDay);
  return thisMonth > periodStart ? thisMonth : addMonthsClamped(periodStart, 1, anchorDay);
}
