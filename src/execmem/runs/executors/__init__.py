"""Where a run's episodes run: ``local`` (asyncio in this process, the default) or ``ray`` (a Ray
cluster; the ``ray`` extra). The run folder is written the same way by either (docs/ray.md)."""
