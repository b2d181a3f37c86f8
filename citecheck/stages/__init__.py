"""Pipeline stages: each a small class with ``name`` and ``run(ctx) -> StageResult``.

Stages never import each other; they read what earlier stages left in ``ctx.data`` and
write their own section of ``ctx.report``.
"""
