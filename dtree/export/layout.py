"""Where a drawn tree's boxes go: a tidy layout that never lets two boxes overlap.

``tidy_layout`` takes each box's size and the tree's shape and returns box centres
in the same units. Each level of the tree is a band as tall as its tallest box;
a subtree is pushed right of its left sibling's subtree just far enough that,
at every depth they share, their boxes keep ``gap`` apart (the contour rule of
Reingold and Tilford's tidy trees), and a parent sits midway over its children.
Edges then run between bands only, from a parent's bottom to a child's top, so
they cross no box and no text.
"""


def tidy_layout(children, widths, heights, gap_x, gap_y):
    """Box centres for a tree of boxes.

    Parameters
    ----------
    children : dict
        node -> (left, right) for the nodes drawn with children; every other node
        in ``widths`` is drawn as a leaf. Node 0 is the root.
    widths, heights : dict
        node -> the box's width and height.
    gap_x, gap_y : float
        The least room between two boxes side by side, and between two levels.

    Returns
    -------
    dict
        node -> (x, y), y growing upwards (the root's band at the top, y <= 0).
    """
    order, depth = _preorder(children)
    offset = {}                      # child -> its x relative to its parent
    contour = {}                     # node -> (levels deepest first, shift)
    for node in reversed(order):     # children before parents
        half = widths[node] / 2.0
        if node not in children:
            contour[node] = ([(-half, half)], 0.0)
            continue
        left, right = children[node]
        (lower, lshift), (upper, rshift) = contour.pop(left), contour.pop(right)
        # at each depth both subtrees reach, the left one's right edge plus the gap
        # may not pass the right one's left edge
        shared = min(len(lower), len(upper))
        need = max((lower[-1 - i][1] + lshift) - (upper[-1 - i][0] + rshift)
                   for i in range(shared)) + gap_x
        offset[left], offset[right] = -need / 2.0, need / 2.0
        lshift -= need / 2.0
        rshift += need / 2.0
        # merge the shorter contour into the longer one, in place
        if len(lower) >= len(upper):
            keep, shift, other, other_shift = lower, lshift, upper, rshift
        else:
            keep, shift, other, other_shift = upper, rshift, lower, lshift
        for i in range(len(other)):
            lo, hi = keep[-1 - i]
            olo, ohi = other[-1 - i]
            keep[-1 - i] = (min(lo + shift, olo + other_shift) - shift,
                            max(hi + shift, ohi + other_shift) - shift)
        keep.append((-half - shift, half - shift))
        contour[node] = (keep, shift)
    band = {}
    for node, d in depth.items():
        band[d] = max(band.get(d, 0.0), heights[node])
    top, level_y = 0.0, {}
    for d in range(len(band)):
        level_y[d] = top - band[d] / 2.0
        top -= band[d] + gap_y
    x = {0: 0.0}
    for node in order:
        if node in children:
            for child in children[node]:
                x[child] = x[node] + offset[child]
    return {node: (x[node], level_y[depth[node]]) for node in order}


def _preorder(children):
    """The nodes in pre-order and their depths (a stack: no recursion limit)."""
    out, depth, stack = [], {0: 0}, [0]
    while stack:
        node = stack.pop()
        out.append(node)
        if node in children:
            left, right = children[node]
            depth[left] = depth[right] = depth[node] + 1
            stack += [right, left]
    return out, depth
