"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)

# ==== issue 15: conv ====
# (the conv family's entries follow this line)

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
