// The one error type of chart loading and rendering: its message is the text helm prints after
// "Error: ", so a user sees the same diagnosis from fleethub as from `helm template`.

export class HelmChartError extends Error {
  override name = 'HelmChartError';
}
