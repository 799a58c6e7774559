/**
 * Randomized fault schedules: a seeded {@link dev.bosun.common.testing.chaos.FaultSchedule} drawn
 * from an operator's menu of {@link dev.bosun.common.testing.chaos.FaultKind}s (faults overlap), a
 * {@link dev.bosun.common.testing.chaos.ScheduleRunner} that injects and heals them in real time
 * through the operator's {@link dev.bosun.common.testing.chaos.Nemesis}, and a {@link
 * dev.bosun.common.testing.chaos.ChaosTable} of what the checker found. The same seed and settings
 * give the same schedule, so a failing run is replayed with {@code ./bosun chaos <db> --seed S}.
 */
package dev.bosun.common.testing.chaos;
