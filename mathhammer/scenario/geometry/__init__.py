"""The battlefield of a scenario, one module per concern (issue 26): routes and levels, placement and casualty
order, Charge geometry, Close Ranks, marker contest, and the board facts; :class:`~mathhammer.scenario.world.World`
composes them."""
