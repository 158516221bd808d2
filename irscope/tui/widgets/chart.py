"""Runtime (or GB/s) per variant in the terminal: x the first swept constexpr, one line per other setting."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from ..model import Model

METRICS = {"median_us": "median runtime (us)", "gbps": "GB/s"}


class RuntimeChart(PlotextPlot):
    def __init__(self, model: Model, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.metric = "median_us"

    def on_mount(self) -> None:
        self.redraw()

    def toggle_metric(self) -> str:
        self.metric = "gbps" if self.metric == "median_us" else "median_us"
        self.redraw()
        return METRICS[self.metric]

    def redraw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        x_name, series = self.model.chart_series(self.metric)
        sources = {r.measurement.source for r in self.model.rows if r.measurement and r.measurement.ranked}
        source = ", ".join(sorted(sources)) if sources else ""
        if not series:
            plt.title("no runtimes yet: bench on a GPU, or open a variant recorded in samples/")
            self.refresh()
            return
        logx = all(x > 0 for points in series.values() for x, _ in points)
        for label, points in series.items():
            xs = [x for x, _ in points]
            plt.plot(xs, [y for _, y in points], label=label, marker="braille")
        if logx:
            plt.xscale("log")
            ticks = sorted({x for points in series.values() for x, _ in points})
            plt.xticks(ticks, [str(int(t)) if t == int(t) else str(t) for t in ticks])
        plt.xlabel(x_name)
        plt.ylabel(METRICS[self.metric])
        plt.title(f"{self.model.title}: {METRICS[self.metric]} by {x_name}" + (f" ({source})" if source else ""))
        self.refresh()
