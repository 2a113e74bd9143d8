# An overlay configuration (a sensitivity run given with --configfile over config.yaml, its own
# output roots) that publishes some of its outputs names them under `overlay:`; this rule copies
# them beside the primary outputs, renamed <paper>_<overlay name>_<file>. `make overlays` runs
# every overlay that has one (docs/workflow.md); overlay_files() is in common.smk.

if OVERLAY:

    rule copy_overlay_outputs:
        """The overlay's published outputs, copied byte for byte beside the primary ones."""
        input:
            [source for source, _ in overlay_files()],
        output:
            [destination for _, destination in overlay_files()],
        log:
            logs("copy_overlay_outputs/overlay.log"),
        benchmark:
            results("benchmarks/copy_overlay_outputs/overlay.tsv")
        localrule: True
        conda:
            "../../envs/plot.yaml"
        threads: resource("copy_overlay_outputs", "threads")
        resources:
            mem_mb=resource("copy_overlay_outputs", "mem_mb"),
            runtime=resource("copy_overlay_outputs", "runtime"),
        script:
            "../scripts/copy_overlay_outputs.py"
