/**
 * How a publishing time is shown: in the author's time zone (the browser's), named, to the
 * minute (the hour is what matters). The end-to-end tests format the expected text with it too.
 */
export const SCHEDULE_TIME: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
};
