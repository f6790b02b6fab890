"""Ops of OpenVINO's 'sort' spec category."""
