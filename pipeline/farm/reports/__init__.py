"""Farm reports: the season's .xlsx (``workbook``), plan vs fact (``plan_fact``), the
names a farmer reads (``labels``), the sheet writer over XlsxWriter (``xlsx``).

The public names are re-exported here so callers import from ``pipeline.farm.reports``.
"""

from pipeline.farm.reports.labels import Labels, op_key, op_label, sensor_label, status_label
from pipeline.farm.reports.plan_fact import (
    PlanFactRow,
    completion_pct,
    plan_vs_fact,
    waiting_fields,
)
from pipeline.farm.reports.workbook import (
    MAX_SENSOR_ROWS,
    Report,
    build_operations_workbook,
    period_text,
    report_filename,
)

__all__ = [
    "MAX_SENSOR_ROWS",
    "Labels",
    "PlanFactRow",
    "Report",
    "build_operations_workbook",
    "completion_pct",
    "op_key",
    "op_label",
    "period_text",
    "plan_vs_fact",
    "report_filename",
    "sensor_label",
    "status_label",
    "waiting_fields",
]
